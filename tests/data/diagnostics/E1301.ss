# From the reference's section on E1301.
dim D = 64

data Digit:
    img: [D]

fn f(batch: [b] Digit) -> [b D] = batch.imgs  # E1301
