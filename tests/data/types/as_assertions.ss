# Assertions with as: symbolic sizes are accepted and the result has the asserted
# axes, with their names, so as renames an axis for broadcasting (E0404's fix); the
# parts of the element type that T doesn't write are kept (x as [b C] keeps the
# domain, x as Unit keeps the shape); relu(x) as Unit is [0, 1].
dim D = 64
dim C = 10

fn rename(x: [n D], y: [k D]) -> [n D]:
    same = y as [n D]  #= [n D]
    total = x + same  #= [n D]
    return total

fn fixed(x: [n D]) -> [8 D] = x as [8 D]  #= [8 D]

fn keeps_domain(p: [b C] Prob over C) -> [8 C] Prob over C = p as [8 C]  #= [8 C] Prob over C

fn keeps_shape(x: [n D]) -> [n D] Unit = x as Unit  #= [n D] Unit

fn clipped(x: [n D]) -> [n D] Unit = relu(x) as Unit  #= [n D] Unit

fn finds_axis(u: [b C] Unit) -> [b C] Prob over C = u as Prob over C  #= [b C] Prob over C
