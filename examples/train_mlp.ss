# A two-layer classifier for 28 x 28 images of digits, trained with AdamW.
#
# The training loop is an ordinary function: value_and_grad for the gradient,
# update for the step, a logs record per step and a checkpoint per epoch.

## Pixels in one flattened image.
dim D = 784
## Width of the hidden layer.
dim Hd = 256
## Number of classes.
dim C = 10

## One labelled image.
data Digit:
    ## The image's pixels, one row after another.
    img: [D]
    ## The digit the image shows.
    label: [] Index[C]

## What each training step reports. The word after each type says how a sink
## combines several records into one row.
logs StepLogs:
    loss: [] mean
    grad_norm: [] max

## A two-layer classifier.
model Mlp:
    param w1: [D Hd] = normal(std=0.02)
    param b1: [Hd] = zeros
    param w2: [Hd C] = uniform(-0.1, 0.1)
    ## Subtracted from every input. Saved with the model, never trained.
    buffer mean: [D] = zeros

## Class logits for a batch of images. `mode` says whether dropout is on:
## Train(seed=s) draws its masks from s, and Eval turns it off.
fn forward(m: Mlp, x: [b D], mode: Mode) -> [b C] Logit over C:
    return (x - m.mean) @ m.w1 + m.b1
        |> gelu
        |> dropout(0.1, mode)
        |> matmul(m.w2)

## Mean cross-entropy of a batch.
fn loss(m: Mlp, batch: [b] Digit, mode: Mode) -> [] NonNeg:
    return cross_entropy(forward(m, batch.img, mode), batch.label, over=C)

## The fraction of a batch that is classified correctly, with dropout off.
fn accuracy(m: Mlp, batch: [b] Digit) -> [] Unit:
    hits = argmax(forward(m, batch.img, Eval), over=C) == batch.label
    return mean(hits to Binary)

## One AdamW step on a batch, with the gradient's norm clipped to 1.
fn train_step(mut m: Mlp, mut opt: AdamW[Mlp], batch: [b] Digit, mode: Mode) -> StepLogs:
    l, g = value_and_grad(loss, m, batch, mode)
    update(mut m, mut opt, g |> clip_norm(1.0))
    return StepLogs(loss=l, grad_norm=norm(g))

## Trains from epoch `first` up to `epochs`: a record per step to `sink`, and
## after each epoch a flush of the sink and a checkpoint of the model, the
## optimizer state and the number of epochs done.
fn run(mut m: Mlp, mut opt: AdamW[Mlp], train: Dataset[Digit], sink: LogSink, first: int, epochs: int, mode: Mode):
    for epoch in first..epochs:
        for batch in train |> shuffle(seed=epoch) |> batches(64):
            sink.write(train_step(mut m, mut opt, batch, mode))
        sink.flush()
        save("ckpt.pt", m, opt, epoch + 1)

## Trains `m` for `epochs` epochs with AdamW at a learning rate of 3e-4.
fn fit(mut m: Mlp, train: Dataset[Digit], sink: LogSink, epochs: int, mode: Mode):
    opt = adamw(m, lr=3e-4)
    run(mut m, mut opt, train, sink, 0, epochs, mode)

## Carries on from the last checkpoint up to `epochs` epochs in all.
fn resume(train: Dataset[Digit], sink: LogSink, epochs: int, mode: Mode) -> Mlp:
    m, opt, done = load("ckpt.pt", Mlp, AdamW[Mlp], int)
    run(mut m, mut opt, train, sink, done, epochs, mode)
    return m
