# From the reference's section on E0802.
dim D = 64

fn f(x: [b D]) -> [b D]:
    if x > 0:  # E0802
        x = x * 2
    return x
