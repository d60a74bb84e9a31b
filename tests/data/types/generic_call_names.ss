# Functions and calls > Generic calls: the callee's generics are solved from the
# arguments by position, and a generic takes the name of the argument axis it was
# matched to, if that had one; a dim keeps its name.
dim D = 64
dim C = 10

fn f(x: [n D]) -> [n D] = x

fn named_arg(x: [t D]) -> [t D]:
    y = f(x)  #= [t D]
    return y

fn number_arg(x: [8 D]) -> [8 D]:
    y = f(x)  #= [8 D]
    return y

# Function declarations: without a return type, the type of the body's value.
fn proj(x: [n D], w: [D C]) = x @ w  #= [n C]

fn inferred(x: [t D], w: [D C]) -> [t C]:
    y = proj(x, w)  #= [t C]
    return y
