import shapescript.std.fit as std

fn f(x: [n]) -> [n] = std.nothing(x)  # E2304
