# A need is found wherever the generic function calls it, also in an if never taken and
# through other generic functions; a function of the name for another model doesn't do.
dim D = 4

model A:
    param w: [D] = zeros

model B:
    param v: [D] = zeros

fn forward(m: A, x: [D]) -> [D] = x * m.w

fn score(m: M, x: [D]) -> [D]:
    if false:
        return forward(m, x)
    return x

fn outer(m: M, x: [D]) -> [D] = score(m, x)

fn uses_a(a: A, x: [D]) -> [D] = outer(a, x)

fn uses_b(b: B, x: [D]) -> [D] = outer(b, x)  # E2311

fn direct_b(b: B, x: [D]) -> [D] = score(b, x)  # E2311
