# Sharing a name with a function whose first parameter isn't a model, or with a generic
# function; two functions of a name that take no model first are E0302, as any name.
dim D = 4

model A:
    param w: [D] = zeros

model B:
    param v: [D] = zeros

fn forward(m: A, x: [D]) -> [D] = x * m.w

fn forward(x: [D]) -> [D] = x  # E2307

fn forward(m: B, x: [D]) -> [D] = x * m.v

fn step(m: M, x: [D]) -> [D] = x

fn step(m: A, x: [D]) -> [D] = x  # E2307

fn plain(x: [D]) -> [D] = x

fn plain(x: [D]) -> [D] = x + 1.0  # E0302
