# Pattern operations and Grammar > Statements: split gives one result per count of
# its input's number, bound to as many names; each result has the output's axes.
# x @ w_qkv with w_qkv: [D 3*D] has the size 3*D (Matrix multiplication; Dims).
dim D = 768
dim H = 12
dim Dh = D / H

fn qkv(x: [b n D], w_qkv: [D 3*D]) -> [b H n Dh]:
    proj = x @ w_qkv  #= [b n 3*D]
    q, k, v = split(proj, b n (3 H Dh) -> b H n Dh)  #= [b H n Dh]
    return q + k + v

fn thirds(x: [n 12]) -> [n 4]:
    first, second, third = split(x, n (3 e) -> n e)  #= [n e]
    return first
