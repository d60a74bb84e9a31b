# A lambda is only the function of a map or filter stage.
fn f(x: [n]) -> [n]:
    g = v => v * 2.0  # E3202
    return x
