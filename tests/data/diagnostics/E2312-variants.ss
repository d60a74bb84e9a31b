# Any other error in an instance is E2312 at the call, once per call however many errors
# the instance has; the generic function's own body isn't checked, so it reports nothing.
dim D = 4
dim C = 3

model A:
    param w: [D] = zeros

model B:
    param w: [C] = zeros

fn scale(m: M, x: [D]) -> [D] = x * m.w

fn never_called(m: M) -> [D] = m.nothing + undefined_name

fn ok(a: A, x: [D]) -> [D] = scale(a, x)

fn bad(b: B, x: [D]) -> [D] = scale(b, x)  # E2312
