# A model without a forward: the drawing reads the functions that take it first and
# give a tensor (not those that take it mut).
dim D = 8
dim C = 4

model Probe:
    param w: [D C] = normal(std=0.1)
    param b: [C] = zeros

fn scores(p: Probe, x: [n D]) -> [n C] = x @ p.w + p.b |> relu

fn best(p: Probe, x: [n D]) -> [n] Index[C] = argmax(scores(p, x), over=C)

fn shrink(mut p: Probe):
    p.w = p.w * 0.5
