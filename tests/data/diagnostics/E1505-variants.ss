# update given a tensor for the model, or for the gradient.
dim D = 4

model Mlp:
    param w: [D D] = zeros

fn a(mut o: SGD[Mlp], g: Grad[Mlp], x: [D]):
    update(mut x, mut o, g)  # E1505

fn b(mut m: Mlp, mut o: SGD[Mlp], x: [D]):
    update(mut m, mut o, x)  # E1505
