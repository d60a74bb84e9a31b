# One GPT block, forward and backward: layer_norm, causal multi-head attention, a
# residual, layer_norm, an MLP with gelu, a residual. The loss is the output's mean, so
# that value_and_grad runs the backward pass through every op.
# benchmarks/vs_torch.py sets D for each size; each head has 64 features.

## Width of each token's features.
dim D = 256
## Features per head.
dim Dh = 64
## Number of heads.
dim H = D / Dh
## Hidden width of the MLP.
dim F = 4 * D

## One block's weights.
model Block:
    param ln1_w: [D] = ones
    param ln1_b: [D] = zeros
    param w_qkv: [D 3*D] = normal(std=0.02)
    param w_o: [D D] = normal(std=0.02)
    param ln2_w: [D] = ones
    param ln2_b: [D] = zeros
    param w_fc: [D F] = normal(std=0.02)
    param b_fc: [F] = zeros
    param w_proj: [F D] = normal(std=0.02)
    param b_proj: [D] = zeros

## Causal multi-head self-attention.
fn attention(m: Block, x: [b n D]) -> [b n D]:
    q, k, v = x @ m.w_qkv |> split(b n (3 H Dh) -> b H n Dh)
    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh)
        |> rearrange(b H n Dh -> b n (H Dh))
        |> matmul(m.w_o)

## The feed-forward layer.
fn mlp(m: Block, x: [b n D]) -> [b n D]:
    return x @ m.w_fc + m.b_fc |> gelu |> matmul(m.w_proj) |> add(m.b_proj)

## The block: attention, then the MLP, each with a residual connection.
fn block(m: Block, x: [b n D]) -> [b n D]:
    x = x + attention(m, layer_norm(x, over=D, weight=m.ln1_w, bias=m.ln1_b))
    return x + mlp(m, layer_norm(x, over=D, weight=m.ln2_w, bias=m.ln2_b))

## The mean of the block's output.
fn loss(m: Block, x: [b n D]) -> [] = block(m, x) |> mean

## The gradient of the loss with respect to every weight: the backward pass.
fn grads(m: Block, x: [b n D]) -> Grad[Block]:
    l, g = value_and_grad(loss, m, x)
    return g
