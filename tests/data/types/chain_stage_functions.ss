# The function of map and filter may be any pipe stage: a name (with over= or without),
# a call the element is passed to first, a call that takes the element as its `_`, or
# `to T`; each is applied to every element as `|>` would apply it.
dim D = 8
dim C = 4

fn minus(x: [n D]) -> [n D] = x |> map(sub(1.0, _), over=n)  #= [n D]

fn project_left(x: [n D], w: [C D]) -> [n C] = x |> map(matmul(w, _), over=n)  #= [n C]

fn project_right(x: [n D], w: [D C]) -> [n C] = x |> map(matmul(_, w), over=n)  #= [n C]

fn clipped(x: [n D]) -> [n D] Unit = x |> map(clamp(0.0, 1.0), over=n)  #= [n D] Unit

fn squashed(x: [n D]) -> [n D] Unit = x |> map(sigmoid, over=n)  #= [n D] Unit

fn rows(x: [n D]) -> [n D] Prob over D = x |> map(softmax(over=D), over=n)  #= [n D] Prob over D

fn halves(x: [n D]) -> [n D] f16 = x |> map(to f16, over=n)  #= [n D] f16

fn above(threshold: float, x: Real) -> Mask = x > threshold

fn big_total(x: [n]) -> [] = x |> filter(above(0.5, _)) |> sum  #= []

fn picked(m: [n D] Mask) -> [n D] Unit = m |> map(where(_, 1.0, 0.0), over=n)  #= [n D] Unit
