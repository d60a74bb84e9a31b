import broken  # E2303

fn h(x: [n broken.D]) -> [n broken.D] = broken.f(x)
