# Arguments given the wrong way to init, Train, optimizers and update.
dim D = 4

model Mlp:
    param w: [D D] = zeros

fn a() -> Mlp = Mlp.init(0)  # E0406

fn b() -> Mode = Train(3)  # E0406

fn c(m: Mlp) -> AdamW[Mlp] = adamw(m, 3e-4)  # E0406

fn d(m: Mlp) -> SGD[Mlp] = sgd(m, momentum=0.9)  # E0406

fn e(m: Mlp) -> SGD[Mlp] = sgd(m, lr=0.1, beta=0.9)  # E0406

fn f(mut m: Mlp, mut o: SGD[Mlp], g: Grad[Mlp]):
    update(m=m, mut o, g)  # E0406
