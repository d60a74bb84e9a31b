# Grammar > Calls and arguments and Pattern operations: einsum(q, k: b H n Dh,
# b H m Dh -> b H n m), where m is a new name for k's third axis; the result's axes
# are named after the output's names. Built-in operations: softmax gives Prob over m.
dim H = 12
dim Dh = 64

fn attend(q: [b H n Dh], k: [b H n Dh], v: [b H n Dh]) -> [b H n Dh]:
    s = einsum(q, k: b H n Dh, b H m Dh -> b H n m)  #= [b H n m]
    p = softmax(s, over=m)  #= [b H n m] Prob over m
    o = einsum(p, v: b H n m, b H m Dh -> b H n Dh)  #= [b H n Dh]
    return o
