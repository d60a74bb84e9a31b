# Shapes and sizes > Grouped sizes: 16gh in a parameter's type introduces gh, and a
# call solves for it (16gh against 224 gives gh = 14). Unification and the size
# solver > Solving; Functions and calls > Generic calls.
fn patchify(img: [b 3 16gh 16gw]) -> [b (gh gw) 768] = rearrange(img, b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c))

fn two_images(img: [2 3 224 224]) -> [2 196 768]:
    p = patchify(img)  #= [2 196 768]
    return p

fn any_batch(img: [b 3 224 224]) -> [b 196 768]:
    p = patchify(img)  #= [b 196 768]
    return p

fn wide(img: [b 3 224 320]) -> [b 280 768]:
    p = patchify(img)  #= [b 280 768]
    return p
