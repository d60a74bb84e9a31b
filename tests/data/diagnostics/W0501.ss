# From the reference's section on W0501.
fn f(x: [n]) = log(sigmoid(x))  # W0501
