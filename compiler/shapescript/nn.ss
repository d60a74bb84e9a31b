# The prelude's neural-network layers, seen by every ShapeScript file without importing them.
# A declaration of the same name in a file hides its stub. Stubs whose arguments don't match
# the torch function's (an axis given by name, a mode) go through shapescript.rt, which is
# torch code too.

## A linear layer over the last axis: $y = x W^\top + b$.
extern fn linear(
    input: [... Din],
    weight: [Dout Din],
    bias: [Dout] = none,
) -> [... Dout] = "torch.nn.functional.linear"

## Layer normalization along the last axis: each vector gets mean 0 and variance 1
## ($\epsilon$ added to the variance), then is scaled by weight and shifted by bias.
extern fn layer_norm(
    x: [... D],
    over: Axis[D],
    weight: [D] = none,
    bias: [D] = none,
    eps = 1e-5,
) -> [... D] = "shapescript.rt.layer_norm"

## RMS normalization along the last axis: $x / \sqrt{\operatorname{mean}(x^2) + \epsilon}$,
## then scaled by weight.
extern fn rms_norm(
    x: [... D],
    over: Axis[D],
    weight: [D] = none,
    eps = 1e-6,
) -> [... D] = "shapescript.rt.rms_norm"

## Batch normalization: each channel (the axis over names) is normalized across all other
## axes, with the batch's statistics under Train and running_mean and running_var under Eval.
extern fn batch_norm(
    x: [...],
    mode: Mode,
    over: Axis[C],
    weight: [C] = none,
    bias: [C] = none,
    running_mean: [C] = none,
    running_var: [C] = none,
    eps = 1e-5,
) -> [...] = "shapescript.rt.batch_norm"

## 2-D convolution of images with Cout kernels of kh by kw pixels; the output's height and
## width round down when the stride doesn't divide evenly.
extern fn conv2d(
    input: [b Cin H W],
    weight: [Cout Cin kh kw],
    bias: [Cout] = none,
    stride: Size[S] = 1,
    padding: Size[P] = 0,
) -> [b Cout (H + 2*P - kh)/S + 1 (W + 2*P - kw)/S + 1] = "torch.nn.functional.conv2d"

## 2-D max pooling: the largest value of each K by K window, moved S pixels at a time
## (S is K unless given).
extern fn max_pool2d(
    input: [b C H W],
    kernel_size: Size[K],
    stride: Size[S] = K,
    padding: Size[P] = 0,
) -> [b C (H + 2*P - K)/S + 1 (W + 2*P - K)/S + 1] = "torch.nn.functional.max_pool2d"

## 2-D average pooling: the mean of each K by K window, moved S pixels at a time
## (S is K unless given).
extern fn avg_pool2d(
    input: [b C H W],
    kernel_size: Size[K],
    stride: Size[S] = K,
    padding: Size[P] = 0,
) -> [b C (H + 2*P - K)/S + 1 (W + 2*P - K)/S + 1] = "torch.nn.functional.avg_pool2d"

## Row $i$ of the $V \times D$ table weight for each id $i$: token ids become vectors.
extern fn embedding(ids: [...] Index[V], weight: [V D]) -> [... D] = "torch.nn.functional.embedding"

## Attention: $\operatorname{softmax}(q k^\top \cdot s) \, v$ along the keys, with
## $s = 1/\sqrt{D_h}$ unless scale is given; keys where attn_mask is false are left out.
extern fn scaled_dot_product_attention(
    q: [... n Dh],
    k: [... m Dh],
    v: [... m Dv],
    attn_mask: [n m] Mask = none,
    scale = none,
) -> [... n Dv] = "torch.nn.functional.scaled_dot_product_attention"

## With Train, zeroes each value with probability p and divides the rest by $1 - p$, keeping
## the mean; with Eval, gives x back unchanged.
extern fn dropout(x: Real, p: float, mode: Mode) -> Real = "shapescript.rt.dropout"
