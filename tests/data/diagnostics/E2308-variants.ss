# An overloaded name picks by its first argument's model: a tensor or a Python value
# first picks none; a function of one name taking another model is E0904, not E2308.
import python torch

dim D = 4

model A:
    param w: [D] = zeros

model B:
    param v: [D] = zeros

fn forward(m: A, x: [D]) -> [D] = x * m.w

fn forward(m: B, x: [D]) -> [D] = x + m.v

fn only(m: A, x: [D]) -> [D] = x * m.w

fn tensor_first(x: [D]) -> [D] = forward(x, x)  # E2308

fn python_first(x: [D]) -> [D] = forward(torch.zeros(4), x)  # E2308

fn another_model(b: B, x: [D]) -> [D] = only(b, x)  # E0904

fn piped(a: A, x: [D]) -> [D] = x |> forward(a)  # E2308

fn grads(b: B, x: [D]) -> Grad[B]:
    l, g = value_and_grad(loss, b, x)  # E2308
    return g

fn loss(m: A, x: [D]) -> [] = sum(x * m.w)

fn loss(m: A2, x: [D]) -> [] = sum(x * m.w)

model A2:
    param w: [D] = zeros
