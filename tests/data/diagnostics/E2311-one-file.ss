# E2311 within one file: a generic step of the file needs `loss`, which no function
# declares for Plain.
dim D = 4

model Plain:
    param w: [D] = zeros

data Ex:
    x: [D]

fn step(mut m: M, mut opt: SGD[M], batch: [b] E) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, g)
    return l

fn train(mut m: Plain, batch: [b] Ex) -> []:
    opt = sgd(m, lr=0.1)
    return step(mut m, mut opt, batch)  # E2311
