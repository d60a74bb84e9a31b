# Functions and calls > Elementwise functions: a function whose parameters and
# return type have no shape applies to tensors of any shape; its arguments
# broadcast together (Broadcasting by name) and the result has the broadcast shape.
dim D = 64

fn swish(x: Real, beta = 1.5) -> Real = x * sigmoid(beta * x)

fn mix(u: Real, v: Real) -> Real = u + v

fn act(x: [b D]) -> [b D]:
    y = swish(x)  #= [b D]
    z = swish(x, beta=2.0)  #= [b D]
    return y + z

fn with_bias(s: [b H n m], pos: [n m]) -> [b H n m]:
    t = mix(s, pos)  #= [b H n m]
    t2 = mix(pos, s)  #= [b H n m]
    return t + t2

fn built_in(x: [n D], w: [D]) -> [n D] = maximum(w, x)  #= [n D]
