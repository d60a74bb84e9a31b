# Shapes and sizes > Shape aliases and Grouped sizes: an alias's axes replace its
# name, and each function that uses it has its own generics; a call on 224 x 224
# images solves gh = gw = 14, so 14 * 14 = 196 patches.
dim D = 768
dim Pd = 3 * 16 * 16
dim Images = [b 3 16gh 16gw]

fn patchify(img: Images, w: [Pd D]) -> [b (gh gw) D]:
    return rearrange(img, b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c)) @ w

fn embed224(img: [b 3 224 224], w: [Pd D]) -> [b 196 D]:
    p = patchify(img, w)  #= [b 196 D]
    return p
