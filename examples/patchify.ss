# The patch embedding of a Vision Transformer (ViT): each image is cut into
# 16 x 16 patches, and each patch becomes one token of D features.

## Width of each patch embedding.
dim D = 768
## Numbers in one flattened 16 x 16 RGB patch.
dim Pd = 3 * 16 * 16
## A batch of RGB images whose height and width are whole numbers of 16-pixel patches.
## 16gh is one axis of 16 * gh pixels, so gh counts the rows of patches.
dim Images = [b 3 16gh 16gw]

## Cuts each image into 16 x 16 patches and projects each flattened patch to D features.
## The patches come out row by row: gh rows of gw patches.
fn patchify(img: Images Unit, w: [Pd D], bias: [D]) -> [b (gh gw) D]:
    return img
        |> rearrange(b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c))
        |> matmul(w)
        |> add(bias)

## Patch embeddings of 224 x 224 images. The call solves 16gh = 224 for gh = 14,
## so each image gives 14 * 14 = 196 patches.
fn embed224(img: [b 3 224 224] Unit, w: [Pd D], bias: [D]) -> [b 196 D] = patchify(img, w, bias)

## The weights of a patch embedding.
model PatchEmbed:
    ## One row per number of a flattened patch.
    param w: [Pd D] = normal(std=0.02)
    param bias: [D] = zeros

## Patch embeddings with the weights of `pe`.
fn embed(pe: PatchEmbed, img: Images Unit) -> [b (gh gw) D] = patchify(img, pe.w, pe.bias)
