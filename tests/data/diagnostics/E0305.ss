# From the reference's section on E0305.
dim D = 768
dim H = 10
dim Dh = D / H  # E0305
