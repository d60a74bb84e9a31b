# From the reference's section on E0411.
fn f(x: [n 12]) -> [n 4]:
    a, b = split(x, n (3 e) -> n e)  # E0411
    return a
