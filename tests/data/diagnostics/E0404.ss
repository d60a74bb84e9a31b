# From the reference's section on E0404.
fn f(x: [n D], y: [k D]) = x + y  # E0404
