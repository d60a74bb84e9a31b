# From the reference's section on E1603.
dim D = 64

model Mlp:
    param w: [D D] = zeros

fn f(m: Mlp):
    save(m)  # E1603
