# From the reference's section on E1706.
export fn f(x: [n]) -> [n]:
    if sum(x) > 0:
        return x  # E1706
    return -x
