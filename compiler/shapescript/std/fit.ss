# The standard library's training loop: `fit` trains any model on any data record.
#
# Every function here is generic: `M` stands for the calling program's model and `E` for
# its data record, and each call from a program makes an instance for those types. The
# loop needs one function from the program, declared next to its model:
#
#     fn loss(m: Mlp, batch: [b] Digit, mode: Mode) -> []
#
# `train_step` finds it there; a model without one is E2311 at the call of `fit`. The
# names declared here (`train_step`, `run`, `StepLogs`) are this file's own, whatever
# the calling program declares.
#
# Each epoch shuffles the dataset with the epoch's number as the seed, takes an AdamW step
# per batch of `size` examples with the gradient's norm clipped to 1, and writes a
# `StepLogs` record per step to the sink; then the sink is flushed, and the model, the
# optimizer state and the epochs done are saved to ckpt.pt, for `resume` to carry on from.
#
# There are no hooks or callbacks: to train another way, copy this file
# (`shapescript.std.path("fit")` says where it is) and change the copy.

## One step's numbers: the batch's loss, and the gradient's norm before clipping.
## Over several steps, the losses are averaged and the largest norm is kept.
logs StepLogs:
    loss: [] mean
    grad_norm: [] max

## One AdamW step of `m` on a batch, the gradient's norm clipped to at most 1.
fn train_step(mut m: M, mut opt: AdamW[M], batch: [b] E, mode: Mode) -> StepLogs:
    l, g = value_and_grad(loss, m, batch, mode)
    update(mut m, mut opt, g |> clip_norm(1.0))
    return StepLogs(loss=l, grad_norm=norm(g))

## The epochs from `first` up to `epochs`: in each, the batches of `size` in the order the
## epoch's number shuffles them, a record per step to `sink`, then a flush of the sink
## and a checkpoint of the model, the optimizer state and the epochs done, in ckpt.pt.
fn run(
    mut m: M, mut opt: AdamW[M], train: Dataset[E], sink: LogSink,
    first: int, epochs: int, size: int, mode: Mode,
):
    for epoch in first..epochs:
        for batch in train |> shuffle(seed=epoch) |> batches(size):
            sink.write(train_step(mut m, mut opt, batch, mode))
        sink.flush()
        save("ckpt.pt", m, opt, epoch + 1)

## Trains `m` for `epochs` epochs on `train`, in batches of `size`, with new AdamW state
## at the learning rate `lr`.
fn fit(mut m: M, train: Dataset[E], sink: LogSink, epochs: int, size: int, lr: float, mode: Mode):
    opt = adamw(m, lr=lr)
    run(mut m, mut opt, train, sink, 0, epochs, size, mode)

## Loads the model, the optimizer state and the epochs done from ckpt.pt, trains on up to
## `epochs` epochs in all, and returns the model. `like` is only there to say which model
## type the checkpoint holds.
fn resume(like: M, train: Dataset[E], sink: LogSink, epochs: int, size: int, mode: Mode) -> M:
    m, opt, done = load("ckpt.pt", M, AdamW[M], int)
    run(mut m, mut opt, train, sink, done, epochs, size, mode)
    return m
