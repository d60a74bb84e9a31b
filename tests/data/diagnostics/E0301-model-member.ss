# A model's name offers only init.
dim D = 4

model Mlp:
    param w: [D D] = zeros

fn a() -> Mlp = Mlp.create(seed=0)  # E0301
