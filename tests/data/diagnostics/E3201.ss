dim D = 4

fn doubled(x: [n D]) -> [n D] = [x[i] * 2.0 for i in n]  # E3201
