# From the reference's section on E1104.
dim D = 64

model Mlp:
    param w: [D D] = zeros

fn reset(mut m: Mlp):
    m = Mlp.init(seed=0)  # E1104
