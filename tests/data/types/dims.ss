# Shapes and sizes > Dims and Size polynomials: sizes are compared after replacing
# each dim by its value, so 3*D and 3*H*Dh are equal; a dim names an axis and is
# shown by its name (as in the hover `w_qkv: [D 3*D]`); dim Dh = D / H is 64.
dim Dh = D / H
dim D = 768
dim H = 12

fn same_size(w: [D 3*D]) -> [D 3*H*Dh] = w  #= [D 3*D]

fn heads(x: [b n D]) -> [b H n Dh]:
    y = rearrange(x, b n (H Dh) -> b H n Dh)  #= [b H n Dh]
    return y

fn per_head(x: [b H n Dh], w: [Dh Dh]) -> [b H n Dh] = x @ w  #= [b H n Dh]

fn head_size(x: [b H n 64]) -> [b H n Dh] = x  #= [b H n 64]
