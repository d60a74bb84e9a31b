fn double(x: [n]) -> [n] = x * 2  # W2501
