# From the reference's section on E0203.
fn f(x: [n D]) = softmax(x, n D -> D n)  # E0203
