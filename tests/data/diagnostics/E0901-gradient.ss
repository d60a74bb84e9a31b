# A gradient has the params only; a misspelt field.
dim D = 4

model Net:
    param w: [D D] = zeros
    buffer mean: [D] = zeros

fn f(g: Grad[Net]) -> [D] = g.mean  # E0901

fn h(m: Net) -> [D] = m.maen  # E0901

fn k(m: Net) -> [D D] = m.w
