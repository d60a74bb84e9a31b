# From the reference's section on E0101.
dim D = 768 $  # E0101
