# Host-only values and operations in an exported function or one it calls.
dim D = 4

model Mlp:
    param w: [D D] = normal(std=0.02)

fn apply(x: [n D]) -> [n D]:
    m = Mlp.init(seed=0)  # E1704
    return x @ m.w

fn noisy(x: [n D]) -> [n D] = dropout(x, 0.1, Train(seed=1))  # E1704

export fn f(x: [n D]) -> [n D]:
    y = apply(x)
    for i in 0..3:
        y = y + noisy(y)
    return y
