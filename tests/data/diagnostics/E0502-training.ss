# Host scalars of the wrong kind for a seed, a hyperparameter and a schedule.
dim D = 4

model Mlp:
    param w: [D D] = zeros

fn a() -> Mlp = Mlp.init(seed=1.5)  # E0502

fn b(m: Mlp) -> AdamW[Mlp] = adamw(m, lr=1e-3, amsgrad=1)  # E0502

fn c() -> Schedule = cosine(1e-3, 2.5)  # E0502

fn d(x: []) -> Mode = Train(seed=x)  # E0805
