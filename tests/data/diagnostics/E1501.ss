# From the reference's section on E1501.
dim D = 64

fn f(x: [b D]):
    opt = adamw(x, lr=3e-4)  # E1501
