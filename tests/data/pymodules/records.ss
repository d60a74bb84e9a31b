devices cpu

dim D = 4
dim C = 3

## One handwritten digit.
data Digit:
    ## Its pixels.
    img: [D]
    label: [] Index[C]

## What a step reports.
logs StepLogs:
    loss: [] mean
    steps: int sum

fn total(batch: [b] Digit) -> [b] = sum(batch.img, over=D)

fn report(x: [n]) -> StepLogs = StepLogs(loss=mean(x, over=n), steps=1)
