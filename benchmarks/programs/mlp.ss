# A transformer's MLP, forward and backward: x @ w1 + b1, gelu, @ w2 + b2. The loss is the
# output's mean, so that value_and_grad runs the backward pass through every op.
# benchmarks/vs_torch.py sets D for each size.

## Width of each token's features.
dim D = 256
## Hidden width.
dim F = 4 * D

## The MLP's weights.
model Mlp:
    param w1: [D F] = normal(std=0.02)
    param b1: [F] = zeros
    param w2: [F D] = normal(std=0.02)
    param b2: [D] = zeros

## The MLP applied to each token.
fn mlp(m: Mlp, x: [b n D]) -> [b n D] = x @ m.w1 + m.b1 |> gelu |> matmul(m.w2) |> add(m.b2)

## The mean of the MLP's output.
fn loss(m: Mlp, x: [b n D]) -> [] = mlp(m, x) |> mean

## The gradient of the loss with respect to every weight: the backward pass.
fn grads(m: Mlp, x: [b n D]) -> Grad[Mlp]:
    l, g = value_and_grad(loss, m, x)
    return g
