# `cuda` without device numbers.
devices cuda  # E1001
