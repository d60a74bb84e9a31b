# From the reference's section on E0407.
fn f(x: [b n D]) = rearrange(x, b n D -> b D)  # E0407
