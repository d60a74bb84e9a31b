# A generic training step (type variables M in m: M, SGD[M] and Grad[M]) is checked in its
# instances, not on its own: nothing here is an error.
dim D = 8
dim C = 3

model A:
    param w: [D C] = normal(std=0.1)

fn loss(m: A, x: [b D], y: [b] Index[C]) -> []:
    return cross_entropy(x @ m.w, y, over=C)

## One SGD step on any model that has a `loss`.
fn step(mut m: M, mut opt: SGD[M], x: [b D], y: [b] Index[C]) -> []:
    l, g = value_and_grad(loss, m, x, y)
    update(mut m, mut opt, g |> clip_norm(1.0))
    return l

fn halve(g: Grad[M]) -> Grad[M] = g * 0.5

fn train(mut m: A, x: [b D], y: [b] Index[C]) -> []:
    opt = sgd(m, lr=0.1)
    return step(mut m, mut opt, x, y)
