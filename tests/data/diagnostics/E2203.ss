# From the reference's section on E2203.
fn f(x: [b 16gh*2]) -> [b] = sum(x, over=b)  # E2203
