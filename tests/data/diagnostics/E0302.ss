# From the reference's section on E0302.
fn f(x: [n]) -> [n] = x
fn f(x: [n]) -> [n] = x  # E0302
