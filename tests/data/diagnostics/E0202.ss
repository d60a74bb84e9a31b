# From the reference's section on E0202.
fn f(x: [n]) -> [n]:
    return x
        extra  # E0202
