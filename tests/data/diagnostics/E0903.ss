# From the reference's section on E0903.
dim D = 64

model Mlp:
    param w1: [D D] = gaussian(std=0.02)  # E0903
