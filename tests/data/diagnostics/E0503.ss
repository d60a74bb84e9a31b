# From the reference's section on E0503.
fn f(x: [b C] Prob) = x  # E0503
