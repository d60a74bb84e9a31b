# From the reference's section on E0105.
fn f(x: [n]) -> [n] = add(x, x))  # E0105
