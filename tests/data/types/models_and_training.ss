# Models, gradients, optimizer state, schedules and modes: a field has its declared type
# (a param's is a float tensor without a domain), value_and_grad gives the loss and a
# Grad[M], and the optimizers, schedules and modes have types of their own.
dim D = 4
dim C = 3

model Net:
    param w: [D C] = normal(std=0.02)
    param b: [C] f64 = zeros
    buffer scale: [C] Pos = ones

fn weights(m: Net) -> [D C] = m.w  #= [D C]

fn scale(m: Net) -> [C] Pos = m.scale  #= [C] Pos

fn loss(m: Net, x: [n D], mode: Mode) -> [] NonNeg f64 = mean(square(dropout(x @ m.w + m.b, 0.1, mode)))

fn grad(m: Net, x: [n D], seed: int) -> Grad[Net]:
    l, g = value_and_grad(loss, m, x, Train(seed=seed))
    doubled = g * 2.0  #= Grad[Net]
    size = norm(doubled)  #= [] NonNeg
    clipped = g |> clip_norm(1.0)  #= Grad[Net]
    part = g.b  #= [C] f64
    return doubled

fn make(seed: int) -> Net = Net.init(seed=seed)  #= Net

fn optimizer(m: Net) -> AdamW[Net] = adamw(m, lr=warmup(10, cosine(3e-3, 90)))  #= AdamW[Net]

fn plain(m: Net) -> SGD[Net] = sgd(m, lr=0.1, momentum=0.9)  #= SGD[Net]

fn evaluation() -> Mode = Eval  #= Mode

fn schedule() -> Schedule = cosine(1e-3, 100, end=1e-5)  #= Schedule
