# A Mode, a model or optimizer state parameter can't have a default.
dim D = 4

model Mlp:
    param w: [D D] = zeros

fn a(x: [b D], mode: Mode = Eval) -> [b D] = x  # E0306
