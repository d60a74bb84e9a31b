# Optimizers given no model, or something else first.
dim D = 4

fn a() -> [] = adamw(lr=3e-4)  # E1501

fn b(s: Schedule) -> [] = sgd(s, lr=0.1)  # E1501
