# Pipes: the reference's own pipeline (layer_norm over D, matmul, gelu), stages that
# are calls with _ marking where the input goes (add(x, _), sub(1.0, _)), and a
# residual block written as one pipeline.
dim D = 64
dim F = 4 * D

fn block(x: [b n D], w1: [D F], w2: [F D]) -> [b n D]:
    y = x
        |> layer_norm(over=D)
        |> matmul(w1)
        |> gelu
    return y |> matmul(w2) |> add(x, _)

fn residual(x: [b n D], w: [D D]) -> [b n D] = x @ w |> gelu |> add(x, _)

fn complement(p: [b D] Unit) -> [b D] = p |> sub(1.0, _)
