import first  # E2302

fn f(x: [n]) -> [n] = x
