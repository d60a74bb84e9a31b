# zip's other tensor of several axes is iterated along its first axis when it is a map or
# filter's result, else along the axis named like the chain's; otherwise E0406.
dim D = 3

fn no_such_axis(x: [n D], y: [D m]) -> [n D] = x |> map(r => r, over=n) |> zip(y) |> map((a, b) => a)  # E0406

fn by_name(x: [n D], y: [D n]) -> [n D] = x |> map(r => r, over=n) |> zip(y) |> map((a, b) => a + b)
