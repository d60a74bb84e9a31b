# Apple GPUs take no device numbers.
devices mps[0]  # E1001
