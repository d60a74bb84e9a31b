# A learning rate that is a tensor.
dim D = 4

fn a(x: []) -> Schedule = warmup(10, x)  # E1504

fn b(x: []) -> Schedule = x  # E1504

fn c() -> Schedule = 0.1
