# A loss that goes through an operation without a gradient can't be differentiated in its
# model; piecewise-smooth operations (relu, abs, maximum) and masks made from sizes are fine.
dim D = 4
dim C = 3

model Net:
    param w: [D C] = zeros

fn through_argmax(m: Net, x: [b D]) -> []:
    best = argmax(x @ m.w, over=C)
    return mean(best to f32)

fn through_relu(m: Net, x: [b D]) -> [] = mean(x @ m.w |> relu)

fn gate(h: [b C]) -> [b C] = masked_fill(h, h < 0.0, 0.0)

fn through_a_gate(m: Net, x: [b D]) -> [] = sum(gate(x @ m.w))

fn through_causal(m: Net, x: [b n D]) -> []:
    scores = einsum(x @ m.w, x @ m.w: b n C, b k C -> b n k)
    return mean(scores |> masked_fill(!causal[n k], -inf) |> softmax(over=k))

fn steps(m: Net, x: [b D], s: [b n D]) -> []:
    l1, g1 = value_and_grad(through_argmax, m, x)  # E3001
    l2, g2 = value_and_grad(through_relu, m, x)
    l3, g3 = value_and_grad(through_a_gate, m, x)  # E3001
    l4, g4 = value_and_grad(through_causal, m, s)
    return l1 + l2 + l3 + l4
