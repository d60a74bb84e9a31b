# From the reference's section on E1304.
dim D = 64

data Digit:
    img: [D]

fn f(train: Dataset[Digit]) -> int:
    n = 0
    for batch in train |> batches(64) |> shuffle(seed=0):  # E1304
        n = n + 1
    return n
