# From the reference's section on E0409.
dim D = 768

fn f(x: [b n D]) = rearrange(x, b n (h e) -> b n h e)  # E0409
