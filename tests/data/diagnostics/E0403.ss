# From the reference's section on E0403.
fn f(x: [n D]) = rearrange(x, n -> n)  # E0403
