# From the reference's section on E0301.
fn f(x: [b D]) -> [b D] = relu(x) |> gelo  # E0301
