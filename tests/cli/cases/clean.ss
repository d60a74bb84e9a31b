# Causal multi-head self-attention, the attention layer of a GPT block.
#
# The checker follows every axis through the layer: the split into heads, the
# two einsums, the causal mask and the merge back, so a size that doesn't fit
# is reported where it happens, before anything runs.

## Width of each token's features.
dim D = 768
## Number of attention heads.
dim H = 12
## Features per head: D / H = 64.
dim Dh = D / H

## Causal multi-head self-attention over the tokens of each sequence.
## Each position attends to itself and to the positions before it, never to
## later ones. The scores are scaled by $1/\sqrt{D_h}$ before the softmax.
fn causal_attention(x: [b n D], w_qkv: [D 3*D], w_o: [D D]) -> [b n D]:
    # One projection gives the queries, keys and values of every head, side by side.
    q, k, v = x @ w_qkv |> split(b n (3 H Dh) -> b H n Dh)
    # Each query against each key; m is the keys' position.
    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    # Average the values by those weights, then put the heads side by side again.
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh)
        |> rearrange(b H n Dh -> b n (H Dh))
        |> matmul(w_o)

## The weights of one attention layer.
model Attention:
    ## The query, key and value projections, in that order along the second axis.
    param w_qkv: [D 3*D] = normal(std=0.02)
    ## The projection applied after the heads are merged.
    param w_o: [D D] = normal(std=0.02)

## Causal self-attention with the weights of `layer`.
fn forward(layer: Attention, x: [b n D]) -> [b n D] = causal_attention(x, layer.w_qkv, layer.w_o)
