# From the reference's section on E0205.
fn f(x: [n]) = add(_, x)  # E0205
