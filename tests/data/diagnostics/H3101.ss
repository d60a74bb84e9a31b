# A step that prints can't be recorded; one that returns its loss can.
dim D = 4
dim C = 3

model Lin:
    param w: [D C] = normal(std=0.02)

fn loss(m: Lin, x: [b D], y: [b] Index[C]) -> [] = cross_entropy(x @ m.w, y, over=C)

fn train_step(mut m: Lin, mut opt: SGD[Lin], x: [b D], y: [b] Index[C]):  # H3101
    l, g = value_and_grad(loss, m, x, y)
    update(mut m, mut opt, g)
    print(l)

fn quiet_step(mut m: Lin, mut opt: SGD[Lin], x: [b D], y: [b] Index[C]) -> []:
    l, g = value_and_grad(loss, m, x, y)
    update(mut m, mut opt, g)
    return l

fn keep(m: Lin):
    save("ckpt.pt", m)

fn saving_step(mut m: Lin, mut opt: SGD[Lin], x: [b D], y: [b] Index[C]):  # H3101
    l, g = value_and_grad(loss, m, x, y)
    update(mut m, mut opt, g)
    keep(m)

fn run(mut m: Lin, mut opt: SGD[Lin], x: [b D], y: [b] Index[C]):
    quiet_step(mut m, mut opt, x, y)
    print(1)
