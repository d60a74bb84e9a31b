# From the reference's section on E0304.
dim A = B + 1  # E0304
dim B = A * 2
