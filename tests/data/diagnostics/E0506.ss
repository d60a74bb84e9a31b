# From the reference's section on E0506.
fn f(s: [n] Signed) = log(s)  # E0506
