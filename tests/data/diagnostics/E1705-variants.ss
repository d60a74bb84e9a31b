# Inputs of an exported program are tensors with shapes; a host scalar with a default is
# kept fixed. A model, a shapeless tensor and an untyped parameter aren't inputs.
dim D = 4

model Mlp:
    param w: [D D] = normal(std=0.02)

export fn ok(x: [n D], scale: float = 2.0, flip: bool = false) -> [n D]:
    return x * scale

export fn with_model(m: Mlp, x: [n D]) -> [n D]:  # E1705
    return x @ m.w

export fn shapeless(x: Real) -> Real:  # E1705
    return x

# A mode is no input either: the program is exported with Eval, dropout off.
export fn dropped(x: [n D], mode: Mode) -> [n D]:
    return dropout(x, 0.5, mode)
