# From the reference's section on E1704.
dim D = 64

export fn f(x: [n D]) -> [n D]:
    print(x)  # E1704
    return x
