# From the reference's section on E0805.
dim D = 64

fn scale(x: [b D], times: int) -> [b D]:
    for i in 0..times:
        x = x * 2
    return x

fn f(x: [b D]) -> [b D] = scale(x, sum(x) to i64)  # E0805
