# From the reference's section on E1802.
devices cuda[0 1]

dim D = 4

data Ex:
    x: [D]

fn flat(batch: [b] Ex) -> [b*D]:
    return rearrange(batch.x, b d -> (b d))  # E1802
