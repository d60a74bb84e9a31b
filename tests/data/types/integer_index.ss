# Indexing: x[i1, i2, ...] applies one index per leading axis of x, and axes without
# an index are kept; an integer index takes one position and removes its axis
# (fn f(x: [n D]) -> [D] = x[0], the fix shown under E2309).
dim D = 64

fn first(x: [n D]) -> [D] = x[0]  #= [D]

fn pick(x: [b n D]) -> [b D]:
    y = x[:, 0]  #= [b D]
    return y
