# From the reference's section on E0804.
dim D = 64

fn f(x: [n D]) -> [n D]:
    for row in x:  # E0804
        x = x * 2
    return x
