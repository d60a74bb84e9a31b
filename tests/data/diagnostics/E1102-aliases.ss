# Changing what may be a parameter without mut: directly, through an alias, after an if.
import python torch
dim D = 4

model Mlp:
    param w: [D D] = zeros

fn same(m: Mlp) -> Mlp = m

fn reset(mut m: Mlp):
    m.w = m.w * 0

fn a(m: Mlp):
    other = m
    other.w = other.w * 2  # E1102

fn b(m: Mlp):
    other = same(m)
    reset(mut other)  # E1102

fn c(m: Mlp, flag: bool):
    other = Mlp.init(seed=0)
    if flag:
        other = m
    reset(mut other)  # E1102

fn d(m: Mlp):
    fresh = Mlp.init(seed=0)
    reset(mut fresh)
    fresh.w = m.w

fn e(m: Mlp, mut o: SGD[Mlp], g: Grad[Mlp]):
    update(mut m, mut o, g)  # E1102

fn g(m: Mlp, mut n: Mlp):
    torch.nn.init.zeros_(mut n)
    torch.nn.init.zeros_(mut m)  # E1102

model Holder:
    inner: Mlp
    layers: [2] Mlp

fn h(holder: Holder):
    reset(mut holder.layers[1])  # E1102

fn i(holder: Holder):
    layer = holder.layers[0]
    reset(mut layer)  # E1102

fn j(holder: Holder):
    for layer in holder.layers:
        layer.w = layer.w * 2  # E1102

fn k(mut holder: Holder, l: int):
    reset(mut holder.layers[l])
    reset(mut holder.inner)
    for layer in holder.layers:
        reset(mut layer)
