devices cpu

## Width of the input.
dim D = 4
dim C = 3

## A two-layer classifier.
model Mlp:
    ## First layer's weights.
    param w1: [D D] = normal(std=0.02)
    param w2: [D C] = normal(std=0.02)

## Class scores for each row of `x`.
fn forward(m: Mlp, x: [b D]) -> [b C] = relu(x @ m.w1) @ m.w2

fn scale(x: [n], k: float = 2.0, twice: bool = false) -> [n]:
    if twice:
        return x * k * k
    return x * k
