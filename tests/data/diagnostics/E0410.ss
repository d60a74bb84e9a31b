# From the reference's section on E0410.
dim D = 768

fn f(x: [n D]) = x as [n 5]  # E0410
