# Pipes: a |> f(args) means f(a, args), each stage is checked with the previous
# stage's result as its input, and a _ argument marks where the input goes
# (x |> add(y, _) means add(y, x)).
dim D = 64
dim F = 256
dim C = 10

fn mlp(x: [b n D], w1: [D F], w2: [F D]) -> [b D]:
    y = x |> matmul(w1) |> gelu |> matmul(w2) |> mean(over=n)  #= [b D]
    return y

fn per_feature(x: [b n D], w: [n C]) -> [b D C] Prob over C:
    p = x |> rearrange(b n D -> b D n) |> matmul(w) |> softmax(over=C)  #= [b D C] Prob over C
    return p

fn placed(x: [b n D], bias: [D]) -> [b n D]:
    y = bias |> add(x, _)  #= [b n D]
    return y
