# Pattern operations: a new name binds the size of its axis, keyword sizes give sizes
# to new names (rearrange(x, b n (h d) -> b h n d, h=12)), and the result's axes are
# named after the output's names. A dim in a pattern requires its size.
dim D = 768
dim H = 12
dim Dh = D / H

fn keyword_heads(x: [b n D]) -> [b 12 n 64]:
    y = rearrange(x, b n (h d) -> b h n d, h=12)  #= [b h n d]
    return y

fn dim_heads(x: [b n D]) -> [b H n Dh] = rearrange(x, b n (H Dh) -> b H n Dh)  #= [b H n Dh]

fn swapped(x: [b n D]) -> [b D n] = rearrange(x, b n D -> b D n)  #= [b D n]

fn renamed(x: [b n D]) -> [b n D]:
    y = rearrange(x, b t D -> t b D)  #= [t b D]
    return rearrange(y, t b D -> b t D)
