# From the reference's section on E0412.
fn f(x: [n]) = x + "s"  # E0412
