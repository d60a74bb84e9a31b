fn f(x: [n]) -> [n] = y  # E0301
