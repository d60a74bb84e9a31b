# A range only starts an iterator chain or is what a for loop loops over.
fn f(x: [n]) -> [n]:
    r = 0..n  # E3203
    return x
