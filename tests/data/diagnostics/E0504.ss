# From the reference's section on E0504.
fn f(x: [n]) = softmax(x, over=n) to Signed  # E0504
