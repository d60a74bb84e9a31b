# Broadcasting by name > The order rule, rule 1 (by name): when every axis of one
# operand is a named axis of the other, the result has the other operand's axes in
# its order; when both qualify, the left operand's order wins.
dim D = 64

fn bias_right(s: [b H n m], bias: [n m]) -> [b H n m]:
    y = s + bias  #= [b H n m]
    return y

fn bias_left(s: [b H n m], bias: [n m]) -> [b H n m]:
    y = bias + s  #= [b H n m]
    return y

fn per_feature(x: [n D], w: [D]) -> [n D] = x + w  #= [n D]

fn transposed(x: [n m], y: [m n]) -> [n m]:
    a = x + y  #= [n m]
    z = y * x  #= [m n]
    return a
