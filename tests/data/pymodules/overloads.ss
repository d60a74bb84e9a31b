devices cpu

dim D = 4

model Small:
    param w: [D D] = normal(std=0.02)

model Wide:
    param w: [D 2*D] = normal(std=0.02)

## Applies a small model.
fn forward(m: Small, x: [b D]) -> [b D] = x @ m.w

## Applies a wide model.
fn forward(m: Wide, x: [b D]) -> [b 2*D] = x @ m.w
