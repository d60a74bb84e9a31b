# From the reference's section on E1801.
devices cuda[0 1 2]

dim D = 4

data Ex:
    x: [D]

fn largest(batch: [b] Ex) -> [D]:
    return max(batch.x, over=b)  # E1801


# batch_norm's statistics across the batch are all-reduced: no error.
fn normalized(batch: [b] Ex, mode: Mode) -> [b D]:
    return batch.x |> batch_norm(mode, over=D)


fn piped_largest(batch: [b] Ex) -> [D]:
    return batch.x |> max(over=b)  # E1801
