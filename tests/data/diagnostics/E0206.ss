# From the reference's section on E0206.
fn f(x: [n]) = 0.0 < x < 1.0  # E0206
