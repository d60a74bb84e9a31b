# The stem and head of a small Vision Transformer (ViT): each 224 x 224 image is
# cut into 16 x 16 patches by a convolution whose stride is its kernel, each
# patch becomes one token of D features, and a linear head classifies the mean
# token.

## Width of each patch embedding.
dim D = 384
## Patches per image: (224 / 16) * (224 / 16).
dim N = 196
## Number of classes.
dim C = 1000

## The weights of the stem and the head.
model Vit:
    ## One 16 x 16 kernel per feature, over the 3 color channels.
    param w_patch: [D 3 16 16] = normal(std=0.02)
    param b_patch: [D] = zeros
    ## One learned vector per patch position.
    param pos: [N D] = normal(std=0.02)
    param ln_w: [D] = ones
    param ln_b: [D] = zeros
    param w_head: [D C] = normal(std=0.02)
    param b_head: [C] = zeros

## Patch tokens with their position embeddings.
fn stem(m: Vit, img: [b 3 224 224] Unit) -> [b N D]:
    x = conv2d(img, m.w_patch, m.b_patch, stride=16)
        |> rearrange(b D gh gw -> b (gh gw) D)
    return x + m.pos

## Class logits for a batch of images.
fn forward(m: Vit, img: [b 3 224 224] Unit) -> [b C] Logit over C:
    x = stem(m, img) |> layer_norm(over=D, weight=m.ln_w, bias=m.ln_b)
    return mean(x, over=N) @ m.w_head + m.b_head

## Mean cross-entropy of a batch.
fn loss(m: Vit, img: [b 3 224 224] Unit, labels: [b] Index[C]) -> [] NonNeg:
    return cross_entropy(forward(m, img), labels, over=C)
