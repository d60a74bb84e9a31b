# From the reference's section on E0106.
fn f(x: [n]) -> [n] = add(x, x  # E0106
