# After `|>`, functions whose first parameter takes the piped value come first.
dim D = 8

fn double(x: [n D]) -> [n D] = x * 2.0
fn pick(x: [n]) -> [n] = x

fn g(y: [t D]) -> [t D]:
    #? double
    z = y |>
    return y
