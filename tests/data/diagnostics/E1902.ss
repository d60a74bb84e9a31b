# From the reference's section on E1902.
devices cuda[0 1 2 3 4]
    split H  # E1902

dim H = 12
