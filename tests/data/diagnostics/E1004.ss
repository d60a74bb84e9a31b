# From the reference's section on E1004.
dim D = 64

devices cpu  # E1004
