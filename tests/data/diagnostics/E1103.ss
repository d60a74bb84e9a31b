# From the reference's section on E1103.
dim D = 64

model Mlp:
    param w: [D D] = zeros

fn reset(mut m: Mlp):
    m.w = m.w * 0

fn f(mut m: Mlp):
    reset(m)  # E1103
