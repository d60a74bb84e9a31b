# From the reference's section on E1201.
fn f(x: [b D]) -> [b D] = x |> dropout(0.1)  # E1201
