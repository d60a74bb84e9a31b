# From the reference's section on E0902.
dim D = 64

model Counter:
    param count: [] i64 = zeros  # E0902
