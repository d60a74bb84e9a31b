# Something other than optimizer state where state is expected.
dim D = 4

model Mlp:
    param w: [D D] = zeros

fn a(mut m: Mlp, mut x: Mlp, g: Grad[Mlp]):
    update(mut m, mut x, g)  # E1503

fn b(m: Mlp) -> SGD[Mlp] = m  # E1503
