# From the reference's section on E0303.
dim D = 768

fn f(x: [n D]) = D(x)  # E0303
