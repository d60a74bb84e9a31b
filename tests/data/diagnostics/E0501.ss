# From the reference's section on E0501.
fn f(x: [n]) -> [n] Unit = x * 2  # E0501
