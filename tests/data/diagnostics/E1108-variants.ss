# What gradients don't support.
dim D = 4

model Mlp:
    param w: [D D] = zeros

fn a(g: Grad[Mlp]) -> [] = mean(g)  # E1108

fn b(g: Grad[Mlp]) -> Grad[Mlp] = 2.0 / g  # E1108

fn c(g: Grad[Mlp], x: [D D]) -> Grad[Mlp] = g + x  # E1108

fn d(g: Grad[Mlp], s: []) -> Grad[Mlp] = -g * s + g / 2

fn e(g: Grad[Mlp]) -> [] NonNeg = norm(g)
