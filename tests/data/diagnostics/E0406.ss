# From the reference's section on E0406.
fn f(x: [n D]) = softmax(x)  # E0406
