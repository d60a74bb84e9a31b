# Param group selectors that select no param.
dim D = 64

model Net:
    param w: [D D] = normal(std=0.02)
    param v: [D D] = normal(std=0.02)

fn f(m: Net):
    a = adamw(m, lr=3e-4, no_decay="vectors")  # E3602
    b = sgd(m, lr=0.1, lr_scale="w=0.5 matrices=0.5")
