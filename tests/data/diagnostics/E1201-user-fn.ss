# A call of one's own function that leaves out its Mode.
dim D = 4

fn noisy(x: [b D], mode: Mode) -> [b D] = dropout(x, 0.5, mode)

fn a(x: [b D]) -> [b D] = noisy(x)  # E1201

fn b(x: [b D]) -> [b D] = batch_norm(x, over=D)  # E1201
