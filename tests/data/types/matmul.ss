# Broadcasting by name > Matrix multiplication: x's last axis is contracted with y's
# second-to-last (or its only axis); the axes before the last two broadcast, then
# x's second-to-last, then y's last; a rank-1 operand loses its contracted axis.
# [b n (H Dh)] @ [D D] is fine when H*Dh = D.
dim D = 768
dim H = 12
dim Dh = D / H
dim C = 10

fn batched(x: [b n D], w: [D C]) -> [b n C] = x @ w  #= [b n C]

fn call_form(x: [b n D], w: [D C]) -> [b n C] = matmul(x, w)  #= [b n C]

fn vector_right(x: [n D], v: [D]) -> [n] = x @ v  #= [n]

fn vector_left(v: [D], w: [D C]) -> [C] = v @ w  #= [C]

fn merged_heads(x: [b n (H Dh)], w_o: [D D]) -> [b n D] = x @ w_o  #= [b n D]

fn scores(q: [b H n Dh], kt: [b H Dh m]) -> [b H n m] = q @ kt  #= [b H n m]
