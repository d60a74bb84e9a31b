"""Small `.ss` programs the export tests share (tiny dims: tracing on the CPU is slow)."""

from __future__ import annotations

ATTENTION = """dim D = 8
dim H = 2
dim Dh = D / H

export fn causal_attention(x: [b n D], w_qkv: [D 3*D], w_o: [D D]) -> [b n D]:
    q, k, v = x @ w_qkv |> split(b n (3 H Dh) -> b H n Dh)
    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh)
        |> rearrange(b H n Dh -> b n (H Dh))
        |> matmul(w_o)
"""

TWO_EXPORTS = """export fn f(x: [n]) -> [n] = x * 2

export fn g(x: [n]) -> [n] = x + 1
"""

UNMARKED_HOST = """dim D = 4

fn shout(x: [n D]) -> [n D]:
    print(x)
    return x
"""

#: A loop over a dynamic range (torch.while_loop), one over a known range (unrolled), a
#: counter carried through it, and an if on a tensor (torch.cond).
CONTROL = """export fn f(x: [n], w: [n n]) -> [n]:
    y = x
    for i in 0..n:
        y = y @ w
    total = 0
    for j in 0..3:
        y = y + x
        total = total + j
    if sum(y) > 0:
        y = y * 2
    else:
        y = -y
    return y * total
"""

#: An `if` on a bool with a return in it stays a Python if.
RETURNING = """export fn g(x: [n], flip: bool = false) -> [n]:
    if flip:
        return -x
    return x
"""

#: Traces, but torch refuses: the `as` makes n 3, which the dynamic n can't be.
REFUSED = """dim D = 4

export fn f(x: [n D]) -> [3 D]:
    y = x * 2
    return y as [3 D]
"""

#: A model that isn't a language model, with the model first, as a Hugging Face folder needs.
ENCODER = """dim D = 8

model Encoder:
    param w: [D D] = normal(std=0.5)
    param b: [D] = normal(std=0.1)

fn forward(m: Encoder, x: [b t D]) -> [b t D] = tanh(x @ m.w + m.b)
"""

#: The reference's E3306 example: the model isn't the first parameter.
MODEL_SECOND = """dim D = 8

model Asr:
    param w: [D D] = normal(std=0.02)

fn transcribe(audio: [b t D], m: Asr) -> [b t D] = audio @ m.w
"""

#: A value check of an argument and one of an `as`, which the program keeps as asserts.
VALUES = """dim D = 4

export fn weigh(p: [n D] Prob over D, x: [n D]) -> [n D]:
    y = x * p
    return exp(y) as [n D] Unit
"""

#: A filter: the kept rows have a size known only from the values, a data-dependent size.
FILTERED = """dim D = 4

export fn positive_total(x: [n D]) -> []:
    kept = x |> filter(row => sum(row) > 0.0, over=n)
    return sum(sum(kept, over=D))
"""

#: An `export fn` that takes a model: still E1705, which --fn on an unmarked one isn't.
MARKED_MODEL = ENCODER.replace("fn forward", "export fn forward")

#: Host numbers a torch.while_loop and a torch.cond assign, used after them: in arithmetic,
#: an `if`, `!`, an index, `to f32` and a call that has an `if` on them; and a loop's
#: counter as an index inside it.
COUNTED = """fn times(x: [n], k: int, on: bool) -> [n]:
    y = x * k
    if on and k > 1:
        y = y + 1.0
    return y

export fn counted(x: [n], w: [n n]) -> [n]:
    count = 0
    y = x
    for i in 0..n:
        count = count + 1
        y = y + w[i]
    big = false
    if sum(x) > 0:
        big = true
    y = times(y, count, big)
    if count > 2 and !big:
        y = y + w[count - 1]
    else:
        y = y - 1.0
    return y + (count to f32)
"""
