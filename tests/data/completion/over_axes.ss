# After `over=`, exactly the operand's axes.
fn f(x: [b n D]) -> [b n D]:
    #? b, n, D
    y = softmax(x, over=
    return x
