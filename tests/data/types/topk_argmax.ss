# Built-in operations and Value domains > Discrete domains: argmax, argmin, argsort
# and topk give indices; argmax(z, over=C) on [b C] is [b] Index[C]. topk gives two
# results (values, then indices, decisions), bound to two names (Grammar > Statements).
dim C = 10

fn best(x: [b C]) -> [b] Index[C]:
    vals, idx = topk(x, 5, over=C)  #= [b 5]
    picked = idx  #= [b 5] Index[C]
    worst = argmin(x, over=C)  #= [b] Index[C]
    top = argmax(x, over=C)  #= [b] Index[C]
    return top
