# shuffle takes seed by name, batches n by position or by name.
dim D = 64

data Digit:
    img: [D]

fn by_position(train: Dataset[Digit]) -> int:
    for b in train |> shuffle(1) |> batches(8):  # E0406
        return 1
    return 0

fn missing(train: Dataset[Digit]) -> int:
    for b in train |> batches():  # E0406
        return 1
    return 0

fn unknown(train: Dataset[Digit]) -> int:
    for b in train |> batches(size=8):  # E0406
        return 1
    return 0

fn fine(train: Dataset[Digit]) -> int:
    for b in train |> shuffle(seed=2) |> batches(n=8):
        return 1
    return 0
