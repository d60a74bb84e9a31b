import imported.shapes as std

fn f(x: [n]) -> [n] = std.nothing(x)  # E2304
