fn as_size(x: [n], k: int) -> [k] = x  # E0303

fn as_domain(x: [n], y: [n]) = x as y  # E0303
