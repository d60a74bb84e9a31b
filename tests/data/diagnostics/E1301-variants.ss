# Reading a field a data record doesn't declare, from a batch, an example or a dataset.
dim D = 64
dim C = 10

data Digit:
    img: [D]
    label: [] Index[C]

fn example(x: Digit) -> [] Index[C] = x.lable  # E1301

fn nested(batch: [b t] Digit) -> [b t D] = batch.pixels  # E1301

fn dataset(train: Dataset[Digit]) -> int:
    x = train.img  # E1301
    return 0

fn fine(batch: [b] Digit, x: Digit) -> [b D] = batch.img + x.img
