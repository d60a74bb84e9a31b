# A batch or dataset parameter or return type given another record, another number of
# batch axes, the other of the two, or a tensor.
dim D = 64

data Digit:
    img: [D]

data Pair:
    a: [D]

fn one(batch: [b] Digit) -> [b D] = batch.img

fn two(batch: [b t] Digit) -> [b t D] = batch.img

fn each(x: Digit) -> [D] = x.img

fn size(train: Dataset[Digit]) -> int = 0

fn axes(batch: [b] Digit) -> [b 1 D] = two(batch)  # E1303

fn example(x: Digit) -> [1 D] = one(x)  # E1303

fn batch_for_example(batch: [b] Digit) -> [D] = each(batch)  # E1303

fn tensor(x: [b D]) -> [b D] = one(x)  # E1303

fn dataset_for_batch(train: Dataset[Digit]) -> [1 D] = one(train)  # E1303

fn batch_for_dataset(batch: [b] Digit) -> int = size(batch)  # E1303

fn other_dataset(train: Dataset[Pair]) -> int = size(train)  # E1303

fn batches_for_dataset(train: Dataset[Digit]) -> int = size(train |> batches(8))  # E1303

fn returns_other(p: [b] Pair) -> [b] Digit = p  # E1303

fn returns_dataset(train: Dataset[Digit], x: [b D]) -> [b] Digit = train  # E1303

fn returns_batch(batch: [b] Digit) -> Dataset[Digit] = batch  # E1303

fn returns_tensor(x: [b D]) -> Dataset[Digit] = x  # E1303
