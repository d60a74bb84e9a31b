# Indexing > Slices: on an axis n, 0:n-1, 1: and :-1 all have size n-1; 0:2*h:2 on
# (2 h) has size h; when every size is known, bounds past the ends are clamped as in
# Python, so x[0:1000] on a [100 D] is [100 D].
dim D = 64

fn drops(x: [n D]) -> [n - 1 D]:
    a = x[1:]  #= [n-1 D]
    z = x[:-1]  #= [n-1 D]
    e = x[0:n-1]  #= [n-1 D]
    return a

fn evens(x: [(2 h) D]) -> [h D]:
    y = x[0:2*h:2]  #= [h D]
    return y

fn known(x: [100 D]) -> [100 D]:
    clamped = x[0:1000]  #= [100 D]
    middle = x[10:20]  #= [10 D]
    return clamped
