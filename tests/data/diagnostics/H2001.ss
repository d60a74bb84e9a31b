# From the reference's section on H2001: sort over the batch axis has no masked version.
data Ex:
    x: [4]

fn ranked(batch: [b] Ex) -> [b 4]:
    return sort(batch.x, over=b)

fn epoch(train: Dataset[Ex]):
    for batch in train |> batches(8):  # H2001
        print(mean(ranked(batch)))

fn padded_epoch(train: Dataset[Ex]):
    for batch in train |> batches(8):
        print(mean(batch.x))

fn indexed(train: Dataset[Ex]):
    for batch in train |> batches(8):  # H2001
        print(mean(batch.x[0]))
