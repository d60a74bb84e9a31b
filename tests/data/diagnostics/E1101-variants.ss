# mut where it isn't allowed: extern parameters, arguments of built-ins, non-mut parameters.
dim D = 4

model Mlp:
    param w: [D D] = zeros

extern fn ext(mut m: Mlp) -> [D] = "mod.ext"  # E1101

fn read(m: Mlp) -> [D D] = m.w

fn a(mut m: Mlp) -> [D D] = read(mut m)  # E1101

fn b(mut m: Mlp, x: [D]) -> [D] = relu(mut x)  # E1101

fn c(mut m: Mlp, mut o: SGD[Mlp], g: Grad[Mlp]):
    update(mut m, mut o, mut g)  # E1101

fn e(mut s: Schedule) -> Schedule = s  # E1101

fn reset(mut m: Mlp):
    m.w = m.w * 0

fn f(mut m: Mlp):
    m |> reset  # E1101

model Holder:
    param v: [D] = zeros
    inner: Mlp

fn scale(mut m: Mlp):
    m.w = m.w * 2

fn held(mut h: Holder):
    scale(mut h.inner)
    ext_py.touch(mut h.v)  # E1101

import python ext_py
