# From the reference's section on E1504.
dim D = 64

model Mlp:
    param w: [D D] = zeros

fn f(m: Mlp, lr: []):
    opt = adamw(m, lr=lr)  # E1504
