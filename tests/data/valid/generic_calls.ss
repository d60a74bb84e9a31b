# Functions and calls > Generic calls and Function declarations: generics solved per
# call from the arguments' axes (by position, names don't matter), calls to functions
# declared later, inferred return types, and a parameter's Index[V] introducing V.
dim D = 64
dim V = 1000

fn double(x: [n]) -> [n] = x * 2

fn f(x: [n D]) -> [n D] = x

fn proj(x: [n D], w: [D C]) = x @ w

fn callers(x: [t D], y: [8 D], w: [D 10]) -> [t 10]:
    a = f(x)
    eight = f(y)
    flat = double(sum(eight, over=D))
    return proj(a, w) + later(x, w)

fn later(x: [n D], w: [D C]) -> [n C] = proj(x, w)

fn lookup(emb: [V D], ids: [b t] Index[V]) -> [b t D] = emb[ids]

fn vocab_of(emb: [Vs D], ids: [b] Index[Vs]) -> [b D] = emb[ids]

fn use_vocab(emb: [V D], ids: [b] Index[V]) -> [b D] = vocab_of(emb, ids)
