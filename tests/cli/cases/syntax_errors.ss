dim D = 768 $
fn f(x: [n]) -> [n] = add(x, x))
fn g(x: [n]) = x |> relu + 1
## stray

dim E = 3
