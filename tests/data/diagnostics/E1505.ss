# From the reference's section on E1505.
dim D = 64

fn f(x: [b D]):
    y = clip_norm(x, 1.0)  # E1505
