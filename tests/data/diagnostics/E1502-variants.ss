# Optimizer state or gradients of another model type.
dim D = 4

model Mlp:
    param w: [D D] = zeros

model Other:
    param w: [D D] = zeros

fn a(mut m: Mlp, mut o: SGD[Mlp], g: Grad[Other]):
    update(mut m, mut o, g)  # E1502

fn keep(o: AdamW[Other]) -> [] = 0

fn b(m: Mlp) -> []:
    o = adamw(m, lr=1e-3)
    return keep(o)  # E1502
