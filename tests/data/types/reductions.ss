# Built-in operations: a reduction over= an axis removes it; without over= it
# reduces every axis, to [] (decisions). max gives one result (the values).
dim D = 64

fn reductions(x: [b n D]) -> []:
    rows = sum(x, over=D)  #= [b n]
    avg = mean(x, over=b)  #= [n D]
    top = max(x, over=n)  #= [b D]
    total = sum(x)  #= []
    return total

fn sorted(x: [n D]) -> [n D]:
    s = sort(x, over=n)  #= [n D]
    order = argsort(x, over=n)  #= [n D] Index[n]
    return s
