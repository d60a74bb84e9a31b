# From the reference's section on E0408.
fn f(x: [b n D]) = rearrange(x, b D n -> b n D)  # E0408
