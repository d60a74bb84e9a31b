# The reference's programs on models, mut, gradients, optimizers and modes.
dim D = 64
dim Hd = 32
dim C = 10

## A two-layer classifier.
model Mlp:
    param w1: [D Hd] = normal(std=0.02)
    param b1: [Hd] = zeros
    param w2: [Hd C] = uniform(-0.1, 0.1)
    ## Subtracted from every input. Saved with the model, never trained.
    buffer mean: [D] = zeros

model Net:
    param w1: [D Hd] = normal(std=0.02)
    buffer mean: [Hd] = zeros
    buffer var: [Hd] NonNeg = ones

fn forward(m: Mlp, x: [b D], mode: Mode) -> [b C]:
    return x @ m.w1 + m.b1 |> gelu |> dropout(0.1, mode) |> matmul(m.w2)

fn train_step(m: Mlp, x: [b D], step: int) -> [b C] = forward(m, x, Train(seed=step))

fn evaluate(m: Mlp, x: [b D]) -> [b C] = forward(m, x, Eval)

fn loss(m: Mlp, x: [b D], y: [b] Index[C]) -> [] NonNeg:
    return cross_entropy(forward(m, x, Eval), y, over=C)

fn grads(m: Mlp, x: [b D], y: [b] Index[C]) -> Grad[Mlp]:
    l, g = value_and_grad(loss, m, x, y)
    return g

fn step(mut m: Mlp, x: [b D], y: [b] Index[C], lr: float):
    l, g = value_and_grad(loss, m, x, y)
    m.w1 = m.w1 - lr * g.w1
    m.w2 = m.w2 - lr * g.w2

fn fit(mut m: Mlp, x: [b D], y: [b] Index[C], steps: int):
    for i in 0..steps:
        step(mut m, x, y, 0.1)

fn fit_adamw(mut m: Mlp, x: [b D], y: [b] Index[C], steps: int) -> AdamW[Mlp]:
    opt = adamw(m, lr=warmup(100, cosine(3e-4, steps)))
    for i in 0..steps:
        l, g = value_and_grad(loss, m, x, y)
        update(mut m, mut opt, g |> clip_norm(1.0))
    return opt

fn halve(g: Grad[Mlp]) -> Grad[Mlp] = g * 0.5

fn sgd_step(mut m: Mlp, mut opt: SGD[Mlp], g: Grad[Mlp]):
    update(mut m, mut opt, g |> clip_norm(1.0) |> halve)

fn track(mut m: Net, x: [b D]):
    h = x @ m.w1
    mu = mean(h, over=b)
    m.var = 0.9 * m.var + 0.1 * mean(square(h - mu), over=b)
    m.mean = 0.9 * m.mean + 0.1 * mu

fn normalized(m: Net, x: [b D], mode: Mode) -> [b Hd]:
    return batch_norm(x @ m.w1, mode, over=Hd, running_mean=m.mean, running_var=m.var)
