# A model or a mode isn't a tensor.
dim D = 4

model Mlp:
    param w: [D D] = zeros

fn a(m: Mlp) -> [D D] = m * 2  # E0412

fn b(m: Mlp) -> [] = sum(m)  # E0412

fn c(x: [D D]) -> [D D] = x

fn d(m: Mlp) -> [D D] = c(m)  # E0412

fn e() -> [] = Eval + 1  # E0412
