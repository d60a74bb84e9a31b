# Shapes and sizes > Unknown sizes: indexing with a mask gives an unknown size,
# x[sum(x, over=D) != 0] is [?k D]; unknown sizes are numbered per function, the
# second shown as ?k2; rows as [196 D] on a [?k D] is fine (Assertions with as).
dim D = 64

fn select(x: [n D], y: [m D]) -> [196 D]:
    rows = x[sum(x, over=D) != 0]  #= [?k D]
    more = y[sum(y, over=D) != 0]  #= [?k2 D]
    fixed = rows as [196 D]  #= [196 D]
    return fixed
