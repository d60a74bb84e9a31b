# What load can't read: values, other types and expressions; undeclared names and
# optimizer state of something other than a model.
dim D = 64

logs StepLogs:
    loss: [] mean

model Mlp:
    param w: [D D] = zeros

fn f(m: Mlp, n: int):
    a = load("ckpt.pt", n)  # E1602
    b = load("ckpt.pt", StepLogs)  # E1602
    c = load("ckpt.pt", Grad[Mlp])  # E1602
    d = load("ckpt.pt", Schedule)  # E1602
    e = load("ckpt.pt", f32)  # E1602
    g = load("ckpt.pt", Mlp.init(seed=0))  # E1602
    h = load("ckpt.pt", Nosuch)  # E0301
    i = load("ckpt.pt", AdamW)  # E0303
    j = load("ckpt.pt", SGD[D])  # E0303
    k, l = load("ckpt.pt", Mlp, AdamW[Mlp], int)  # E0411
    o = load(Mlp)  # E1603
