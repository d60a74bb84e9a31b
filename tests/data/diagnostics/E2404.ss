# From the reference's section on E2404.
devices cuda[0 1]

dim D = 4

data Ex:
    x: [D]

fn doubled(batch: [b] Ex) -> [b D] = batch.x |> map(row => row * 2.0, over=b)  # E2404
