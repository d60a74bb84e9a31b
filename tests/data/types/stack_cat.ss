# Names and scoping > Axis names: stack(..., over=k) introduces k when it is a new
# name, and it is then an axis of the result that over= can name. Built-in
# operations: cat joins along its over= axis. Assertions with as: the result has the
# asserted axes.
dim D = 64

fn stacked(x: [n D], y: [n D]) -> [n D]:
    s = stack(x, y, over=k)
    total = sum(s, over=k)  #= [n D]
    return total

fn joined(x: [n D], y: [n D]) -> [2*n D]:
    c = cat(x, y, over=n) as [2*n D]  #= [2*n D]
    return c
