# Operations across the split batch axis: lowered ones are fine, the others E1801.
devices cpu[0 1 2]

dim D = 4
dim C = 3

data Ex:
    x: [D]
    y: [] Index[C]

fn fine(batch: [b] Ex) -> [D]:
    total = sum(batch.x, over=b)
    return total + mean(batch.x, over=b)

fn per_example(batch: [b] Ex) -> [b D] = softmax(batch.x, over=D)

fn along(batch: [b] Ex) -> [b D] = softmax(batch.x, over=b)  # E1801

fn first(batch: [b] Ex) -> [D] = batch.x[0]  # E1801

fn everything(batch: [b] Ex) -> [] = max(batch.x)  # E1801

extern fn normed(x: [n D], over: Axis[n]) -> [n D] = "torch.nn.functional.normalize"

fn along_extern(batch: [b] Ex) -> [b D] = normed(batch.x, over=b)  # E1801
