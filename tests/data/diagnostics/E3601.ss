# Param group options that aren't a string literal listing fields.
dim D = 64

model Net:
    param w: [D D] = normal(std=0.02)
    param b: [D] = zeros

fn f(m: Net, which: float):
    a = adamw(m, lr=3e-4, no_decay=which)  # E3601
    b = adamw(m, lr=3e-4, lr_scale="w")  # E3601
    c = sgd(m, lr=0.1, no_decay="b=0")  # E3601
    d = adamw(m, lr=3e-4, lr_scale="w=-1")  # E3601
    e = adamw(m, lr=3e-4, no_decay="vectors", lr_scale="w=0.1, b = 2")
