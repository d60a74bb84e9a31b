# From the reference's section on E0502.
fn f(x: [n D] bf16, w: [D D]) = x @ w  # E0502
