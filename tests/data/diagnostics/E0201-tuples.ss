# ShapeScript has no tuples: an argument written as one is a single E0201, and the call is
# still checked. AdamW's `betas=(0.9, 0.95)` offers `beta1=0.9, beta2=0.95`.
dim D = 4

model Mlp:
    param w: [D D] = normal(std=0.02)

fn adamw_state(m: Mlp) -> AdamW[Mlp] = adamw(m, lr=3e-4, betas=(0.9, 0.95))  # E0201
fn sgd_state(m: Mlp) -> SGD[Mlp] = sgd(m, lr=(0.1, 0.01))  # E0201
