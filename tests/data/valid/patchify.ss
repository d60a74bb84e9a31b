# The ViT patch embedding of examples/patchify.ss, without the model: a shape alias
# with grouped sizes (Shapes and sizes > Shape aliases, Grouped sizes), a pattern
# group solved from 16gh, and a call on 224 x 224 images that solves gh = 14.
dim D = 768
dim Pd = 3 * 16 * 16
dim Images = [b 3 16gh 16gw]

fn patchify(img: Images Unit, w: [Pd D], bias: [D]) -> [b (gh gw) D]:
    return img
        |> rearrange(b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c))
        |> matmul(w)
        |> add(bias)

fn embed224(img: [b 3 224 224] Unit, w: [Pd D], bias: [D]) -> [b 196 D] = patchify(img, w, bias)

fn patchify_grouped(img: [b 3 16gh 16gw], w: [Pd D]) -> [b (gh gw) D] = rearrange(img, b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c)) @ w

fn rows(img: [b 16gh 16gw]) -> [b gh 16 gw 16] = rearrange(img, b (gh p) (gw q) -> b gh p gw q)

fn embed_wide(img: [b 3 224 320], w: [Pd D]) -> [b 280 D] = patchify_grouped(img, w)
