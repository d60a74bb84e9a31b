# From the reference's section on E0307.
fn f(x: [n]) -> [n]:  # E0307
    y = x
