fn triple(x: [n]) -> [n] = x * 3
