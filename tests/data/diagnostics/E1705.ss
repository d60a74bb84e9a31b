# From the reference's section on E1705.
export fn f(x: [n], k: int) -> [n]:  # E1705
    return x * k
