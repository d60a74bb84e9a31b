# A batch or a dataset isn't a tensor.
dim D = 64

data Digit:
    img: [D]

fn plus(batch: [b] Digit) -> int:
    x = batch + 1  # E0412
    return 0

fn negated(batch: [b] Digit) -> int:
    x = -batch  # E0412
    return 0

fn reduced(batch: [b] Digit) -> int:
    x = mean(batch)  # E0412
    return 0

fn asserted(batch: [b] Digit) -> int:
    x = batch as [b D]  # E0412
    return 0

fn passed(train: Dataset[Digit]) -> [D] = identity(train)  # E0412

fn identity(x: [D]) -> [D] = x
