# From the reference's section on E1003.
devices cpu
devices cuda[0]  # E1003
