# From the reference's section on E0505.
fn f(x: [n m], keep: [n m] Mask) = x + keep  # E0505
