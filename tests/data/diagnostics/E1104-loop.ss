# A mut parameter can't be a loop variable, nor get new optimizer state.
dim D = 4

model Mlp:
    param w: [D D] = zeros

fn a(mut m: Mlp, n: int):
    for m in 0..n:  # E1104
        print(m)

fn b(m: Mlp, mut o: AdamW[Mlp]):
    o = adamw(m, lr=1e-3)  # E1104
