# A param group option that names a field the model doesn't have.
dim D = 64

model Net:
    param wte: [D D] = normal(std=0.02)
    param ln_w: [D] = ones
    buffer mean: [D] = zeros

fn f(m: Net):
    a = adamw(m, lr=3e-4, no_decay="vectors ln_ww")  # E0901
    b = sgd(m, lr=0.1, lr_scale="wpe=0.1")  # E0901
    c = adamw(m, lr=3e-4, no_decay="mean")  # E0901
