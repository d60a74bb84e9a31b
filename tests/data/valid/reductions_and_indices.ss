# Built-in operations: reductions with and without over=, operations along an axis
# (softmax, log_softmax, sort, argsort), indices from argmax, argmin and topk (two
# results, E0415's limit respected), and tensors joined with cat and stack.
dim D = 64
dim C = 10

fn summaries(x: [b n D]) -> [b D]:
    total = sum(x)
    per_row = mean(x, over=D)
    spread = std(x, over=n)
    return max(x, over=n) + spread + total

fn classes(z: [b C]) -> [b] Index[C]:
    p = softmax(z, over=C)
    lp = log_softmax(z, over=C)
    worst = argmin(z, over=C)
    return argmax(p, over=C)

fn best5(z: [b C]) -> [b 5] Index[C]:
    vals, idx = topk(z, 5, over=C)
    return idx

fn best5_values(z: [b C]) -> [b 5]:
    vals, idx = topk(z, 5, over=C)
    return vals

fn ranked(x: [n D]) -> [n D]:
    order = argsort(x, over=n)
    return sort(x, over=n)

fn joined(x: [n D], y: [n D]) -> [2*n D] = cat(x, y, over=n)

fn stacked(x: [n D], y: [n D]) -> [n D]:
    both = stack(x, y, over=k)
    return mean(both, over=k)
