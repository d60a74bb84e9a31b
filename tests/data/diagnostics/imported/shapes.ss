## A file the E2304 cases import: it declares a dim, a model and a function.
dim D = 4

model Line:
    param w: [D] = zeros

fn double(x: [n]) -> [n] = x * 2
