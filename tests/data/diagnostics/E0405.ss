# From the reference's section on E0405.
fn f(x: [n D]) = softmax(x, over=q)  # E0405
