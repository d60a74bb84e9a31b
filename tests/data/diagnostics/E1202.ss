# From the reference's section on E1202.
fn f(x: [b D], training: bool) -> [b D] = dropout(x, 0.1, training)  # E1202
