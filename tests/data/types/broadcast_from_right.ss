# Broadcasting by name > The order rule, rule 2 (from the right): pairs need equal
# sizes or a 1; a named axis is kept over an unnamed one of the same size; the extra
# leading axes of the longer operand are kept. A rank-0 operand broadcasts to anything.
dim D = 64

fn unnamed(x: [n 3], y: [3]) -> [n 3] = x + y  #= [n 3]

fn named_kept(x: [n D], y: [64]) -> [n D] = x + y  #= [n D]

fn size_one(x: [n D], y: [n 1]) -> [n D] = x * y  #= [n D]

fn scalars(x: [n D], s: []) -> [n D]:
    a = x * 2  #= [n D]
    z = s + x  #= [n D]
    return a - z
