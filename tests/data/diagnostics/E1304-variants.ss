# shuffle and batches on what isn't a dataset, in the wrong order, twice, or with a batch
# size known to be less than 1.
import python torch
dim D = 64

data Digit:
    img: [D]

fn tensor(x: [n D]) -> int:
    for row in x |> batches(8):  # E1304
        return 1
    return 0

fn shuffled_tensor(x: [n D]) -> int:
    for row in x |> shuffle(seed=1) |> batches(8):  # E1304
        return 1
    return 0

fn python_value() -> int:
    for batch in torch.arange(10) |> batches(8):  # E1304
        return 1
    return 0

fn twice(train: Dataset[Digit]) -> int:
    for batch in train |> batches(8) |> batches(2):  # E1304
        return 1
    return 0

fn zero(train: Dataset[Digit]) -> int:
    for batch in train |> batches(0):  # E1304
        return 1
    return 0

fn negative(train: Dataset[Digit], n: int) -> int:
    for batch in train |> batches(-4):  # E1304
        return 1
    return 0

fn from_dims(train: Dataset[Digit]) -> int:
    for batch in train |> batches(D - 64):  # E1304
        return 1
    return 0

fn fine(train: Dataset[Digit], n: int, epoch: int) -> int:
    k = 0
    for batch in train |> shuffle(seed=epoch) |> batches(n):
        k = k + b
    for batch in train |> batches(D):
        k = k + 1
    return k
