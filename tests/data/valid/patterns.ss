# Pattern operations: keyword sizes (the fix of E0409, h=8), split bound to as many
# names as its count (the fix of E0411), reduce with a reduction by name, repeat with
# new names and numbers, einsum with several operands, and groups solved from dims.
dim D = 768
dim H = 12
dim Dh = D / H

fn heads8(x: [b n D]) -> [b n 8 96] = rearrange(x, b n (h e) -> b n h e, h=8)

fn thirds(x: [n 12]) -> [n 4]:
    a, b, c = split(x, n (3 e) -> n e)
    return a + b + c

fn merge(x: [b H n Dh]) -> [b n D] = rearrange(x, b H n Dh -> b n (H Dh))

fn flatten(x: [b n D]) -> [b*n D] = rearrange(x, b n D -> (b n) D)

fn mean_tokens(x: [b n D]) -> [b D] = reduce(x, b n D -> b D, mean)

fn pool2(img: [b 32 32 D]) -> [b 16 16 D] = reduce(img, b (h 2) (w 2) D -> b h w D, max)

fn tile(x: [b D]) -> [b 4 D 2] = repeat(x, b D -> b r D 2, r=4)

fn bilinear(x: [b D], w: [D D], y: [b D]) -> [b] = einsum(x, w, y: b i, i j, b j -> b)

fn heads_then_back(x: [b n D]) -> [b n D]:
    split_heads = rearrange(x, b n (h d) -> b h n d, h=12)
    return rearrange(split_heads, b h n d -> b n (h d))
