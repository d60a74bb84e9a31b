# From the reference's section on E0201.
dim H = * 2  # E0201
