# From the reference's section on E0306.
fn f(x) -> [n] = x  # E0306
