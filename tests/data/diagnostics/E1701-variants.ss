# Python reached from an export fn: a value, a pipe stage, and a call in a function the
# exported one calls, which is reported where it is and names the exported function. An
# `as` on the Python expression itself isn't reported again (E1703 is for a value from an
# earlier line).
dim D = 8

import python torch

fn helper(x: [n D]) -> [n D]:
    return x * (torch.pi as float)  # E1701

export fn f(x: [n D]) -> [n D]:
    y = (x |> torch.tanh) as [n D]  # E1701
    return helper(y)

fn not_exported(x: [n D]) -> [n D]:
    return (x |> torch.tanh) as [n D]
