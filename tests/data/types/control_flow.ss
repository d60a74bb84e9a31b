# Control flow and host scalars: a counter that starts at 0 and only grows is in
# [0, inf) after the loop; an if with an else binds a value both blocks bind.
dim D = 4

fn count(x: [n D], steps: int) -> [n D]:
    total = 0
    for i in 0..steps:
        total = total + 1
    scaled = x * 2.0  #= [n D]
    return scaled

fn pick(x: [n D], flag: bool) -> [n D]:
    if flag:
        y = x * 2.0
    else:
        y = x * 3.0
    z = y  #= [n D]
    return z
