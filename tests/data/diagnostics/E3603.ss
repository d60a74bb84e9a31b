# A param that two words of lr_scale give different factors.
dim D = 64

model Net:
    param wte: [D D] = normal(std=0.02)
    param b: [D] = zeros

fn f(m: Net):
    a = adamw(m, lr=3e-4, lr_scale="wte=0.1 matrices=0.5")  # E3603
    b = adamw(m, lr=3e-4, lr_scale="wte=0.1 matrices=0.1")
