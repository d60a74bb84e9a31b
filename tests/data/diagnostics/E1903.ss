# From the reference's section on E1903.
devices cuda[0 1]
    split H
    split D  # E1903

dim D = 8
dim H = 2
