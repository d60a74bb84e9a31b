# Shapes and sizes > Dims, Size polynomials and Division: dims may refer to each other
# in any order, sizes are compared after replacing dims by their values (3*D equals
# 3*H*Dh), exact divisions, and sizes written as multiples ([2*n] and [n]).
dim Dh = D / H
dim D = 768
dim H = 12
dim Qkv = 3 * D

fn same(w: [D 3*D]) -> [D 3*H*Dh] = w

fn same_again(w: [D Qkv]) -> [D 3*Dh*H] = w

fn halves(x: [2*n D]) -> [n 2 D] = rearrange(x, (m two) D -> m two D, two=2)

fn doubled(x: [n D]) -> [n + n D] = repeat(x, n D -> (n two) D, two=2)

fn per_head(x: [b n D]) -> [b n H Dh] = rearrange(x, b n (H Dh) -> b n H Dh)

fn head_width(x: [b n H 64]) -> [b n H Dh] = x

fn scale(x: [b n D]) -> [b n D] = x / sqrt(Dh) * (D / H)
