dim D = 4

fn f(x: [n D]) -> [n D] = x + y  # E0301

fn g(x: [n]) -> [n] = x

## Its warnings are left to checking this file itself.
fn warned(x: [n]) = log(sigmoid(x))  # W0501
