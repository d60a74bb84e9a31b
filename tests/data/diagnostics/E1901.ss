# From the reference's section on E1901.
devices cuda[0 1 2]

import python augment

dim D = 4

data Ex:
    x: [D]

fn augmented(batch: [b] Ex) -> [b D]:
    return augment.random_crop(batch.x) as [b D]  # E1901
