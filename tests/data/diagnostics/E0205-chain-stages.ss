# In map and filter, `_` stands for the element only as an argument of the stage's own
# call, once; anywhere deeper it is still misused.
dim D = 8

fn twice(x: [n D]) -> [n D] = x |> map(add(_, _), over=n)  # E0205

fn nested(x: [n D]) -> [n D] = x |> map(where(exp(_) > 1.0, 1.0, 0.0), over=n)  # E0205

fn in_lambda(x: [n D]) -> [n D] = x |> map(row => sub(1.0, _), over=n)  # E0205

fn fine(x: [n D]) -> [n D] = x |> map(sub(1.0, _), over=n)
