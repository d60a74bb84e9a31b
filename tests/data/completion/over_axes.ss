# After `over=`, exactly the operand's axes, last first (as the stage snippet orders them).
fn f(x: [b n D]) -> [b n D]:
    #? D, n, b
    y = softmax(x, over=
    return x

fn g(x: [b h n m]) -> [b h n m]:
    #? m, n, h, b
    y = x |> softmax(over=
    return x
