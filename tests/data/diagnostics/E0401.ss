# From the reference's section on E0401.
fn f(x: [n 3], w: [4 5]) = x @ w  # E0401
