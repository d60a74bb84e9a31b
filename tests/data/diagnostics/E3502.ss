# A top-level assert compares dims; `x` is not one.
dim T = 32
assert x < T  # E3502
