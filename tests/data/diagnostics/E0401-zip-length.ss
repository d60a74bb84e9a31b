# Zipped iterations must be equally long.
dim D = 3

fn lengths(x: [n D], y: [m D]) -> [n D] = x |> map(r => r, over=n) |> zip(y |> map(r => r, over=m)) |> map((a, b) => a)  # E0401

fn sizes(x: [n D]) -> [n D] = n |> zip(x |> map(r => r * 2.0, over=n)) |> map((i, r) => r)
