# From the reference's section on E1803.
devices cuda[0 1 2]

dim D = 4
dim C = 3

model M:
    param w: [D C] = normal(std=0.02)

data Ex:
    x: [D]
    y: [] Index[C]

fn loss(m: M, batch: [b] Ex) -> []:
    return cross_entropy(batch.x @ m.w, batch.y, over=C)

fn fit(mut m: M, mut opt: AdamW[M], data: Dataset[Ex]):  # H3101
    for batch in data |> batches(64):
        l, g = value_and_grad(loss, m, batch)  # E1803
        update(mut m, mut opt, g)  # E1803
