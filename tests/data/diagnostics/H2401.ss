# A loop over a whole axis that only adds independent terms could be an iterator chain.
dim D = 4

fn total(x: [n D]) -> [D]:
    acc = x[0] * 0.0
    for i in 0..n:  # H2401
        acc = acc + x[i] * 2.0
    return acc

fn recurrence(x: [n D]) -> [D]:
    acc = x[0] * 0.0
    for i in 0..n:
        acc = acc * 0.5 + x[i]
    return acc
