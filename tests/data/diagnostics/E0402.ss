# From the reference's section on E0402.
dim D = 768

fn f(x: [n D]) -> [n D / 5] = x  # E0402
