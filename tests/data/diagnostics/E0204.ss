# From the reference's section on E0204.
fn f(x: [n]) = x |> relu + 1  # E0204
