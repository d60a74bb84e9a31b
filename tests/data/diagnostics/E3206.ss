# A lambda over pairs takes one parameter per part.
dim D = 4

fn scaled(x: [n D], w: [n]) -> [n D] = x |> zip(w, over=n) |> map(row => row * 2.0)  # E3206
