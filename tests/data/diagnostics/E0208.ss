# From the reference's section on E0208.
dim D = 99999999999999999999  # E0208
