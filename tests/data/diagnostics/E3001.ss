# A loss that goes through an operation without a gradient can't be differentiated in its
# model; piecewise-smooth operations (relu, abs, maximum) and masks made from sizes are fine.
# An extern fn counts as discontinuous unless its Python function is one the checker knows
# or its doc comment declares its class.
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

extern fn wobble(h: [b C]) -> [b C] = "mylib.wobble"

## regularity: smooth
extern fn smooth_wobble(h: [b C]) -> [b C] = "mylib.smooth_wobble"

extern fn mish(h: [b C]) -> [b C] = "torch.nn.functional.mish"

fn through_an_extern(m: Net, x: [b D]) -> [] = sum(wobble(x @ m.w))

fn through_a_declared_extern(m: Net, x: [b D]) -> [] = sum(x @ m.w |> smooth_wobble)

fn through_a_known_extern(m: Net, x: [b D]) -> [] = sum(mish(x @ m.w))

fn steps(m: Net, x: [b D], s: [b n D]) -> []:
    l1, g1 = value_and_grad(through_argmax, m, x)  # E3001
    l2, g2 = value_and_grad(through_relu, m, x)
    l3, g3 = value_and_grad(through_a_gate, m, x)  # E3001
    l4, g4 = value_and_grad(through_causal, m, s)
    l5, g5 = value_and_grad(through_an_extern, m, x)  # E3001
    l6, g6 = value_and_grad(through_a_declared_extern, m, x)
    l7, g7 = value_and_grad(through_a_known_extern, m, x)
    return l1 + l2 + l3 + l4 + l5 + l6 + l7
