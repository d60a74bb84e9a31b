# Something other than a Mode where one is expected.
dim D = 4

fn noisy(x: [b D], mode: Mode) -> [b D] = dropout(x, 0.5, mode)

fn a(x: [b D]) -> [b D] = noisy(x, 1)  # E1202

fn b(x: [b D]) -> Mode = x  # E1202

fn c(x: [b D], seed: int) -> [b D] = noisy(x, Train(seed=seed))

fn d(x: [b D]) -> [b D] = batch_norm(x, true, over=D)  # E1202
