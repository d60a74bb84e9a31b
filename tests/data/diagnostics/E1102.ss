# From the reference's section on E1102.
dim D = 64

model Mlp:
    param w: [D D] = zeros

fn reset(m: Mlp):
    m.w = m.w * 0  # E1102
