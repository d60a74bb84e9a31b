# update changes its model and its optimizer state, so both are written mut.
dim D = 4

model Mlp:
    param w: [D D] = zeros

fn a(mut m: Mlp, mut o: SGD[Mlp], g: Grad[Mlp]):
    update(m, mut o, g)  # E1103

fn b(mut m: Mlp, mut o: SGD[Mlp], g: Grad[Mlp]):
    update(mut m, o, g)  # E1103
