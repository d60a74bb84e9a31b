# From the reference's section on E1801.
devices cuda[0 1 2]

dim D = 4

data Ex:
    x: [D]

fn largest(batch: [b] Ex) -> [D]:
    return max(batch.x, over=b)  # E1801
