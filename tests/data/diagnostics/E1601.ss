# From the reference's section on E1601.
dim D = 64

model Mlp:
    param w: [D D] = zeros

fn f(m: Mlp, x: [b D]):
    save("ckpt.pt", m, x)  # E1601
