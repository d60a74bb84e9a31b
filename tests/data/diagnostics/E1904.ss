# From the reference's section on E1904.
devices cuda[0 1]
    split heads  # E1904

fn f(x: [heads n]) -> [heads n] = x * 2
