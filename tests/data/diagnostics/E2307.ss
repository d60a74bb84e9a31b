# From the reference's section on E2307.
dim D = 4

model A:
    param w: [D] = zeros

fn forward(m: A, x: [D]) -> [D] = x * m.w

fn forward(m: A, x: [D]) -> [D] = x + m.w  # E2307
