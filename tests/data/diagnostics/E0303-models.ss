# A model's name, Grad, Mode and optimizer types used where they can't be.
dim D = 4

model Mlp:
    param w: [D D] = zeros

fn a() -> Mlp = Mlp  # E0303

fn b() -> Mlp = Mlp(seed=0)  # E0303

fn c(x: [D] Mlp) -> [D] = x  # E0303

fn d(g: Grad[D]) -> [D] = 0  # E0303

fn e() -> Mode = Eval()  # E0303

fn f() -> Mode = Train  # E0303

fn g(o: AdamW[D]) -> [] = 0  # E0303

fn h(m: Mlp) -> [D D]:
    m2 = m
    x = m2.w
    return x

fn k(g: Grad[Nothing]) -> [D] = 0  # E0301
