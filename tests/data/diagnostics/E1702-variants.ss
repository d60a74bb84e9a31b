# Externs into torch, math and the prelude's runtime stubs trace; another module doesn't,
# as a call or as a pipe stage.
dim D = 8

extern fn erfc(x: Real) -> NonNeg = "torch.special.erfc"
extern fn mystery(x: [...]) -> [...] = "mylib.mystery"

export fn f(x: [n D]) -> [n D]:
    y = erfc(x) |> layer_norm(over=D)
    return y |> mystery  # E1702
