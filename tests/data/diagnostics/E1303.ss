# From the reference's section on E1303.
dim D = 64

data Digit:
    img: [D]

data Pair:
    a: [D]

fn mean_img(batch: [b] Digit) -> [D] = mean(batch.img, over=b)

fn f(p: [b] Pair) -> [D] = mean_img(p)  # E1303
