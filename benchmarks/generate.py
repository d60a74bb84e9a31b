"""Synthetic ShapeScript programs of a chosen length, for the benchmarks.

`generate_program` writes a program the way the examples are written: dims and
shape aliases, domains, extern fns, models, data and logs records, and the
functions that use them. It repeats a handful of units (a GPT-style decoder, a
vision model with grouped sizes, a classifier with its training loop, a
grouped-query attention model, a network with batch normalization, and a set of
small tools), each with its own sizes and with every name suffixed by a counter,
so that the whole file declares each name once and its shapes agree. The same
seed always gives the same text.

Run `python -m benchmarks.generate [lines] [seed]` to print a program.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable

Unit = Callable[[int, random.Random], list[str]]


def _header(seed: int) -> list[str]:
    return [
        "# A synthetic ShapeScript program for the benchmarks, written the way the",
        "# examples are: dims, models and the functions that use them, repeated with",
        f"# new names. Made by benchmarks/generate.py with seed {seed}.",
        "devices cpu",
        "",
        "## PyTorch itself, for loading weights saved from Python.",
        "import python torch",
        "",
    ]


def _decoder(k: int, rng: random.Random) -> list[str]:
    """A GPT-style decoder: stacked blocks, causal attention, tied output layer."""
    width = rng.choice([256, 384, 512, 768])
    per_head = rng.choice([32, 64])
    layers = rng.choice([2, 4, 6, 12])
    vocab = rng.choice([1000, 8192, 32000, 50257])
    act = rng.choice(["gelu", "silu"])
    eps = rng.choice(["1e-5", "1e-6"])
    d, h, dh, f, n_layers, v = f"D{k}", f"H{k}", f"Dh{k}", f"F{k}", f"L{k}", f"V{k}"
    tokens, model = f"Tokens{k}", f"Decoder{k}"
    return [
        f"# ---- unit {k}: a GPT-style decoder",
        "",
        f"## Width of the residual stream of decoder {k}.",
        f"dim {d} = {width}",
        "## Attention heads.",
        f"dim {h} = {width // per_head}",
        "## Features per head.",
        f"dim {dh} = {d} / {h}",
        "## Hidden width of the feed-forward layers.",
        f"dim {f} = 4 * {d}",
        "## Number of stacked blocks.",
        f"dim {n_layers} = {layers}",
        "## Size of the vocabulary.",
        f"dim {v} = {vocab}",
        "## The token features of a batch of sequences.",
        f"dim {tokens} = [b n {d}]",
        "",
        "## A decoder-only language model whose output layer reuses the token embeddings.",
        f"model {model}:",
        "    ## One row of features for each token of the vocabulary.",
        f"    param wte: [{v} {d}] = normal(std=0.02)",
        f"    param ln_attn: [{n_layers} {d}] = ones",
        "    ## The query, key and value projections of each block, side by side.",
        f"    param w_qkv: [{n_layers} {d} 3*{d}] = normal(std=0.02)",
        f"    param w_o: [{n_layers} {d} {d}] = normal(std=0.01 / {n_layers})",
        f"    param ln_mlp: [{n_layers} {d}] = ones",
        f"    param w_up: [{n_layers} {d} {f}] = normal(std=0.02)",
        f"    param b_up: [{n_layers} {f}] = zeros",
        f"    param w_down: [{n_layers} {f} {d}] = normal(std=0.01 / {n_layers})",
        f"    param ln_out: [{d}] = ones",
        "    ## Training steps taken so far. Saved with the model, never trained.",
        "    buffer steps: [] i64 = zeros",
        "",
        "## Causal multi-head self-attention. The scores are scaled by $1/\\sqrt{D_h}$,",
        "## and each position sees only itself and the positions before it.",
        f"export fn causal_attention{k}(x: {tokens}, w_qkv: [{d} 3*{d}], w_o: [{d} {d}]) "
        f"-> {tokens}:",
        "    # One projection gives the queries, keys and values of every head.",
        f"    q, k, v = x @ w_qkv |> split(b n (3 {h} {dh}) -> b {h} n {dh})",
        f"    att = einsum(q, k: b {h} n {dh}, b {h} m {dh} -> b {h} n m) / sqrt({dh})",
        "        |> masked_fill(!causal[n m], -inf)",
        "        |> softmax(over=m)",
        f"    return einsum(att, v: b {h} n m, b {h} m {dh} -> b {h} n {dh})",
        f"        |> rearrange(b {h} n {dh} -> b n ({h} {dh}))",
        "        |> matmul(w_o)",
        "",
        "## The attention of block `l`, on normalized features.",
        f"fn attend{k}(net: {model}, x: {tokens}, l: int) -> {tokens}:",
        f"    h = x |> rms_norm(over={d}, weight=net.ln_attn[l], eps={eps})",
        f"    return causal_attention{k}(h, net.w_qkv[l], net.w_o[l])",
        "",
        f"## The feed-forward layer of block `l`, with a {act.upper()}.",
        f"fn feed_forward{k}(net: {model}, x: {tokens}, l: int) -> {tokens} = x",
        f"    |> rms_norm(over={d}, weight=net.ln_mlp[l], eps={eps})",
        "    |> matmul(net.w_up[l])",
        "    |> add(net.b_up[l])",
        f"    |> {act}",
        "    |> matmul(net.w_down[l])",
        "",
        "## One pre-norm residual block. With `deep`, the attention branch is scaled",
        "## down so that the residual stream keeps its size over many blocks.",
        f"fn block{k}(net: {model}, x: {tokens}, l: int, deep: bool) -> {tokens}:",
        f"    a = attend{k}(net, x, l)",
        "    if deep:",
        f"        a = a / sqrt(2 * {n_layers})",
        "    h = x + a",
        f"    return h + (h |> feed_forward{k}(net, _, l))",
        "",
        "## Next-token logits at every position.",
        f"fn forward{k}(net: {model}, ids: [b n] Index[{v}], deep: bool) "
        f"-> [b n {v}] Logit over {v}:",
        "    # Looking up rows of the embedding checks that the ids are of this vocabulary.",
        "    x = net.wte[ids]",
        f"    for l in 0..{n_layers}:",
        f"        x = block{k}(net, x, l, deep)",
        f"    return x |> rms_norm(over={d}, weight=net.ln_out, eps={eps}) |> linear(net.wte)",
        "",
        "## Mean cross-entropy of predicting each next token.",
        f"fn loss{k}(net: {model}, ids: [b n] Index[{v}]) -> [] NonNeg:",
        f"    logits = forward{k}(net, ids, true)",
        "    # The logits at each position are scored against the token after it.",
        f"    return cross_entropy(logits[:, :-1], ids[:, 1:], over={v})",
        "",
        "## One AdamW step, with the gradient's norm clipped to 1.",
        f"fn train_step{k}(mut net: {model}, mut opt: AdamW[{model}], ids: [b n] Index[{v}]) "
        "-> [] NonNeg:",
        f"    l, g = value_and_grad(loss{k}, net, ids)",
        "    update(mut net, mut opt, g |> clip_norm(1.0))",
        "    net.steps = net.steps + 1",
        "    return l",
        "",
        "## The most likely token after each sequence.",
        f"fn next_token{k}(net: {model}, ids: [b n] Index[{v}]) -> [b] Index[{v}]:",
        f"    logits = forward{k}(net, ids, true)",
        f"    return argmax(logits[:, -1], over={v})",
        "",
        "## The features of each token in 4 groups, for a grouped normalization.",
        f"fn groups{k}(x: {tokens}) -> [b n 4 {d}/4] = rearrange(x, b n (g e) -> b n g e, g=4)",
        "",
        "## A fused query, key and value projection saved from PyTorch.",
        f"fn load_qkv{k}() -> [{d} 3*{d}]:",
        f'    return torch.load("decoder{k}_qkv.pt") as [{d} 3*{d}]',
        "",
    ]


def _vision(k: int, rng: random.Random) -> list[str]:
    """Patches with grouped sizes, a linear embedding, pooling and a head."""
    width = rng.choice([192, 384, 768])
    classes = rng.choice([10, 100, 1000])
    e, c, pd, images, model = f"E{k}", f"C{k}", f"Pd{k}", f"Images{k}", f"Vit{k}"
    return [
        f"# ---- unit {k}: patch embeddings of images",
        "",
        f"## Features of each patch embedding of vision model {k}.",
        f"dim {e} = {width}",
        "## Classes the head scores.",
        f"dim {c} = {classes}",
        "## Numbers in one flattened 16 x 16 RGB patch.",
        f"dim {pd} = 3 * 16 * 16",
        "## A batch of RGB images made of whole 16 x 16 patches: gh rows of gw patches.",
        f"dim {images} = [b 3 16gh 16gw]",
        "",
        "## A patch embedding and a linear classification head.",
        f"model {model}:",
        f"    param w_patch: [{pd} {e}] = normal(std=0.02)",
        f"    param b_patch: [{e}] = zeros",
        f"    param w_head: [{e} {c}] = normal(std=1 / {e})",
        "    ## The mean embedding of the training set, taken away before the head.",
        f"    buffer center: [{e}] = zeros",
        "",
        "## The patch embeddings of each image, row by row.",
        f"fn patchify{k}(net: {model}, img: {images} Unit) -> [b (gh gw) {e}]:",
        "    return img",
        "        |> rearrange(b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c))",
        "        |> matmul(net.w_patch)",
        "        |> add(net.b_patch)",
        "",
        "## Class logits from the average patch embedding.",
        f"fn classify{k}(net: {model}, img: {images} Unit) -> [b {c}] Logit over {c}:",
        f"    tokens = patchify{k}(net, img)",
        f"    pooled = reduce(tokens, b t {e} -> b {e}, mean) - net.center",
        "    return pooled @ net.w_head",
        "",
        "## Logits for 224 x 224 images, which have 14 x 14 patches each.",
        f"fn classify_full{k}(net: {model}, img: [b 3 224 224] Unit) -> [b {c}] "
        f"= classify{k}(net, img)",
        "",
        "## Halves the resolution by averaging each 2 x 2 block of pixels.",
        f"fn downsample{k}(img: {images}) -> [b 3 8gh 8gw] "
        "= reduce(img, b c (y 2) (x 2) -> b c y x, mean)",
        "",
        "## How many patches each image has.",
        f"fn patches{k}(img: {images}) -> int = gh * gw",
        "",
    ]


def _classifier(k: int, rng: random.Random) -> list[str]:
    """A data record, a logs record, an MLP and its whole training loop."""
    inputs = rng.choice([784, 3072])
    hidden = rng.choice([128, 256, 512])
    classes = rng.choice([10, 100])
    p = rng.choice(["0.1", "0.2"])
    size = rng.choice([32, 64, 128])
    peak = rng.choice(["3e-4", "1e-3"])
    d, hd, c = f"D{k}", f"Hd{k}", f"C{k}"
    example, step_logs, model = f"Example{k}", f"StepLogs{k}", f"Mlp{k}"
    ckpt = f'"classifier{k}.pt"'
    return [
        f"# ---- unit {k}: a classifier and its training loop",
        "",
        f"## Input features of classifier {k}.",
        f"dim {d} = {inputs}",
        "## Width of the hidden layer.",
        f"dim {hd} = {hidden}",
        "## Number of classes.",
        f"dim {c} = {classes}",
        "",
        "## One labelled example.",
        f"data {example}:",
        "    ## The example's features.",
        f"    x: [{d}]",
        f"    label: [] Index[{c}]",
        "",
        "## What each training step reports, and how a sink combines it.",
        f"logs {step_logs}:",
        "    loss: [] mean",
        "    grad_norm: [] max",
        "",
        "## A two-layer classifier.",
        f"model {model}:",
        f"    param w1: [{d} {hd}] = normal(std=0.02)",
        f"    param b1: [{hd}] = zeros",
        f"    param w2: [{hd} {c}] = uniform(-0.1, 0.1)",
        f"    param b2: [{c}] = zeros",
        "    ## Subtracted from every input. Saved with the model, never trained.",
        f"    buffer mean: [{d}] = zeros",
        "",
        "## Class logits; `mode` says whether dropout is on.",
        f"fn forward{k}(net: {model}, x: [b {d}], mode: Mode) -> [b {c}] Logit over {c}:",
        "    h = (x - net.mean) @ net.w1 + net.b1",
        "    return h",
        "        |> gelu",
        f"        |> dropout({p}, mode)",
        "        |> matmul(net.w2)",
        "        |> add(_, net.b2)",
        "",
        "## Mean cross-entropy of a batch.",
        f"fn loss{k}(net: {model}, batch: [b] {example}, mode: Mode) -> [] NonNeg:",
        f"    return cross_entropy(forward{k}(net, batch.x, mode), batch.label, over={c})",
        "",
        "## The fraction of a batch classified correctly, with dropout off.",
        f"fn accuracy{k}(net: {model}, batch: [b] {example}) -> [] Unit:",
        f"    hits = argmax(forward{k}(net, batch.x, Eval), over={c}) == batch.label",
        "    return hits |> to Binary |> mean",
        "",
        "## One AdamW step, with the gradient's norm clipped to 1.",
        f"fn train_step{k}(mut net: {model}, mut opt: AdamW[{model}], batch: [b] {example}, "
        f"mode: Mode) -> {step_logs}:",
        f"    l, g = value_and_grad(loss{k}, net, batch, mode)",
        "    update(mut net, mut opt, g |> clip_norm(1.0))",
        f"    return {step_logs}(loss=l, grad_norm=norm(g))",
        "",
        "## Trains from epoch `first` up to `epochs`, saving a checkpoint after each.",
        f"fn run{k}(mut net: {model}, mut opt: AdamW[{model}], train: Dataset[{example}], "
        "sink: LogSink, first: int, epochs: int, mode: Mode):",
        "    for epoch in first..epochs:",
        f"        for batch in train |> shuffle(seed=epoch) |> batches({size}):",
        f"            sink.write(train_step{k}(mut net, mut opt, batch, mode))",
        "        sink.flush()",
        f"        save({ckpt}, net, opt, epoch + 1)",
        "",
        "## Trains with a learning rate that warms up, then follows a cosine down.",
        f"fn fit{k}(mut net: {model}, train: Dataset[{example}], sink: LogSink, epochs: int, "
        "mode: Mode):",
        f"    opt = adamw(net, lr=warmup(100, cosine({peak}, 10000)))",
        f"    run{k}(mut net, mut opt, train, sink, 0, epochs, mode)",
        "",
        "## Carries on from the last checkpoint.",
        f"fn resume{k}(train: Dataset[{example}], sink: LogSink, epochs: int, mode: Mode) "
        f"-> {model}:",
        f"    net, opt, done = load({ckpt}, {model}, AdamW[{model}], int)",
        f"    run{k}(mut net, mut opt, train, sink, done, epochs, mode)",
        "    return net",
        "",
    ]


def _llama(k: int, rng: random.Random) -> list[str]:
    """Grouped-query attention, a SwiGLU feed-forward layer and RMS norms."""
    width = rng.choice([512, 1024])
    heads = rng.choice([8, 16])
    kv_heads = rng.choice([2, 4])
    hidden = rng.choice([1376, 2816])
    layers = rng.choice([2, 4, 8])
    vocab = rng.choice([32000, 32768])
    d, h, hkv, r, dh = f"D{k}", f"H{k}", f"Hkv{k}", f"R{k}", f"Dh{k}"
    f, n_layers, v, model = f"F{k}", f"L{k}", f"V{k}", f"Llama{k}"
    return [
        f"# ---- unit {k}: a llama-style model with grouped-query attention",
        "",
        f"## Width of llama {k}.",
        f"dim {d} = {width}",
        "## Query heads.",
        f"dim {h} = {heads}",
        f"## Key and value heads; each serves {r} query heads.",
        f"dim {hkv} = {kv_heads}",
        f"dim {r} = {h} / {hkv}",
        f"dim {dh} = {d} / {h}",
        "## Hidden width of the SwiGLU layers.",
        f"dim {f} = {hidden}",
        f"dim {n_layers} = {layers}",
        f"dim {v} = {vocab}",
        "",
        "## A llama-style language model with untied embeddings.",
        f"model {model}:",
        f"    param embed: [{v} {d}] = normal(std=0.02)",
        f"    param attn_norm: [{n_layers} {d}] = ones",
        f"    param w_q: [{n_layers} {d} {d}] = normal(std=0.02)",
        "    ## Keys, then values, of every key and value head.",
        f"    param w_kv: [{n_layers} {d} 2*{hkv}*{dh}] = normal(std=0.02)",
        f"    param w_o: [{n_layers} {d} {d}] = normal(std=0.02)",
        f"    param mlp_norm: [{n_layers} {d}] = ones",
        "    ## The gate and the up projection, side by side.",
        f"    param w_gate: [{n_layers} {d} 2*{f}] = normal(std=0.02)",
        f"    param w_down: [{n_layers} {f} {d}] = normal(std=0.02)",
        f"    param norm: [{d}] = ones",
        f"    param output: [{v} {d}] = normal(std=0.02)",
        "",
        "## Grouped-query attention of block `l`.",
        f"fn attention{k}(net: {model}, x: [b n {d}], l: int) -> [b n {d}]:",
        f"    q = x @ net.w_q[l] |> rearrange(b n ({h} {dh}) -> b {h} n {dh})",
        f"    k, v = x @ net.w_kv[l] |> split(b n (2 {hkv} {dh}) -> b {hkv} n {dh})",
        "    # Each key and value head is repeated for the query heads that share it.",
        f"    k = repeat(k, b {hkv} n {dh} -> b ({hkv} {r}) n {dh})",
        f"    v = repeat(v, b {hkv} n {dh} -> b ({hkv} {r}) n {dh})",
        "    return scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])",
        f"        |> rearrange(b {h} n {dh} -> b n ({h} {dh}))",
        "        |> matmul(net.w_o[l])",
        "",
        "## The SwiGLU feed-forward layer of block `l`.",
        f"fn feed_forward{k}(net: {model}, x: [b n {d}], l: int) -> [b n {d}]:",
        f"    a, gate = x @ net.w_gate[l] |> split(b n (2 {f}) -> b n {f})",
        "    return silu(a) * gate @ net.w_down[l]",
        "",
        "## One pre-norm residual block.",
        f"fn block{k}(net: {model}, x: [b n {d}], l: int) -> [b n {d}]:",
        f"    h = x + (x |> rms_norm(over={d}, weight=net.attn_norm[l], eps=1e-5) "
        f"|> attention{k}(net, _, l))",
        f"    return h + (h |> rms_norm(over={d}, weight=net.mlp_norm[l], eps=1e-5) "
        f"|> feed_forward{k}(net, _, l))",
        "",
        "## Next-token logits at every position.",
        f"fn forward{k}(net: {model}, ids: [b n] Index[{v}]) -> [b n {v}] Logit over {v}:",
        "    x = embedding(ids, net.embed)",
        f"    for l in 0..{n_layers}:",
        f"        x = block{k}(net, x, l)",
        f"    return x |> rms_norm(over={d}, weight=net.norm, eps=1e-5) |> linear(net.output)",
        "",
    ]


def _batch_norm(k: int, rng: random.Random) -> list[str]:
    """Batch normalization with running statistics, SGD and a gradient transform."""
    inputs = rng.choice([64, 128, 256])
    hidden = rng.choice([256, 512])
    classes = rng.choice([10, 20])
    d, kk, c, model = f"D{k}", f"K{k}", f"C{k}", f"Net{k}"
    return [
        f"# ---- unit {k}: batch normalization and SGD",
        "",
        f"## Input features of network {k}.",
        f"dim {d} = {inputs}",
        "## Hidden features.",
        f"dim {kk} = {hidden}",
        f"dim {c} = {classes}",
        "",
        "## A two-layer network with batch normalization after the first layer.",
        f"model {model}:",
        f"    param w1: [{d} {kk}] = normal(std=1 / {d})",
        f"    param w2: [{kk} {c}] = normal(std=1 / {kk})",
        f"    param gain: [{kk}] = ones",
        f"    param shift: [{kk}] = zeros",
        f"    ## Running statistics of the hidden features, kept by `track{k}`.",
        f"    buffer mean: [{kk}] = zeros",
        f"    buffer var: [{kk}] = ones",
        "",
        "## Class logits. Train(seed=s) normalizes with the batch's statistics, Eval",
        "## with the running ones.",
        f"fn forward{k}(net: {model}, x: [b {d}], mode: Mode) -> [b {c}] Logit over {c}:",
        "    h = x @ net.w1",
        f"        |> batch_norm(mode, over={kk}, weight=net.gain, bias=net.shift, "
        "running_mean=net.mean, running_var=net.var)",
        "        |> relu",
        "        |> dropout(0.1, mode)",
        "    return h @ net.w2",
        "",
        "## Moves the running statistics a tenth of the way towards the batch's.",
        f"fn track{k}(mut net: {model}, x: [b {d}]):",
        "    h = x @ net.w1",
        "    mu = mean(h, over=b)",
        "    net.var = 0.9 * net.var + 0.1 * mean(square(h - mu), over=b)",
        "    net.mean = 0.9 * net.mean + 0.1 * mu",
        "",
        f"fn loss{k}(net: {model}, x: [b {d}], y: [b] Index[{c}], mode: Mode) -> [] NonNeg = "
        f"cross_entropy(forward{k}(net, x, mode), y, over={c})",
        "",
        "## A gradient transform: half of every gradient.",
        f"fn halve{k}(g: Grad[{model}]) -> Grad[{model}] = g * 0.5",
        "",
        "## One SGD step, with dropout drawn from `seed`.",
        f"fn step{k}(mut net: {model}, mut opt: SGD[{model}], x: [b {d}], y: [b] Index[{c}], "
        "seed: int) -> [] NonNeg:",
        f"    l, g = value_and_grad(loss{k}, net, x, y, Train(seed=seed))",
        f"    update(mut net, mut opt, g |> clip_norm(1.0) |> halve{k})",
        "    return l",
        "",
        "## Fits one batch for `steps` steps, warming the learning rate up if `warm`.",
        f"fn fit{k}(mut net: {model}, x: [b {d}], y: [b] Index[{c}], steps: int, warm: bool) "
        "-> [] NonNeg:",
        "    if warm:",
        "        opt = sgd(net, lr=warmup(10, 0.1))",
        "    else:",
        "        opt = sgd(net, lr=0.1)",
        f"    l = loss{k}(net, x, y, Eval)",
        "    for i in 0..steps:",
        f"        track{k}(mut net, x)",
        f"        l = step{k}(mut net, mut opt, x, y, i)",
        '    print("final loss", l)',
        "    return l",
        "",
    ]


def _tools(k: int, rng: random.Random) -> list[str]:
    """Domains, extern fns, elementwise functions, slices and iterator chains."""
    width = rng.choice([32, 64, 128])
    classes = rng.choice([10, 16])
    temp = rng.choice(["2.0", "0.5"])
    share = rng.choice(["0.75", "0.5"])
    d, c, temp_domain, share_domain = f"D{k}", f"C{k}", f"Temp{k}", f"Share{k}"
    return [
        f"# ---- unit {k}: small tools",
        "",
        f"## Features of the vectors of toolkit {k}.",
        f"dim {d} = {width}",
        f"dim {c} = {classes}",
        "## Temperatures that keep a softmax well away from one-hot.",
        f"domain {temp_domain} = [0.05, 10]",
        "## Shares of a whole, never exactly 0.",
        f"domain {share_domain} = (0, 1]",
        "",
        "## The complementary error function.",
        f'extern fn erfc{k}(x: Real) -> NonNeg = "torch.special.erfc"',
        "## Shifts a tensor along one axis, wrapping around.",
        f'extern fn roll{k}(input: [...], shifts: Size[S], dims: Axis[n]) -> [...] = "torch.roll"',
        "",
        "## Divides logits by a temperature: above 1 flattens, below 1 sharpens.",
        f"fn cool{k}(z: Real, t: {temp_domain} = 1.0) -> Real = z / t",
        "",
        "## Mixes `a` and `c` in the proportion `p` to `1 - p`.",
        f"fn mix{k}(a: Real, c: Real, p: {share_domain} = 0.5) -> Real = p * a + (1 - p) * c",
        "",
        f"## Class probabilities at temperature {temp}.",
        f"fn soft{k}(z: [b {c}]) -> [b {c}] Prob over {c} = z |> cool{k}(t={temp}) "
        f"|> softmax(over={c})",
        "",
        "## The upper tail of a standard normal, $P(X > x)$.",
        f"fn tail{k}(x: [b {d}]) -> [b {d}] NonNeg = erfc{k}(x / sqrt(2.0)) * 0.5",
        "",
        "## A gate in [-1, 1] for each feature.",
        f"fn gate{k}(x: [b {d}]) -> [b {d}] Signed = x",
        "    |> sigmoid",
        "    |> to Signed",
        "",
        "## Blends each position with the one before it, `steps` times.",
        f"fn smooth{k}(x: [b n {d}], steps: int) -> [b n {d}]:",
        "    y = x",
        "    for i in 0..steps:",
        "        # The first position takes the last one's features, as on a ring.",
        f"        y = mix{k}(y, roll{k}(y, 1, dims=n), p={share})",
        "    return y",
        "",
        "## Attention weights in which each position sees itself and earlier ones.",
        f"fn causal_weights{k}(scores: [b n m]) -> [b n m] Prob over m:",
        "    # An additive mask: 0 where a position may look, -inf where it may not.",
        "    bias = causal[n m] |> to Additive",
        "    return scores + bias |> softmax(over=m)",
        "",
        "## Scores of every row of `x` against every row of `y`.",
        f"fn affinity{k}(x: [b n {d}], y: [b m {d}]) -> [b n m] = "
        f"einsum(x, y: b n {d}, b m {d} -> b n m) / sqrt({d})",
        "",
        "## The length of each row.",
        f"fn row_norms{k}(x: [n {d}]) -> [n] NonNeg = x |> map(row => sqrt(sum(square(row))), "
        "over=n)",
        "",
        "## Scales each row by its weight.",
        f"fn scale_rows{k}(x: [n {d}], w: [n]) -> [n {d}] = n |> map(i => x[i] * w[i])",
        "",
        "## The even positions of each sequence.",
        f"fn evens{k}(x: [b 2t {d}]) -> [b t {d}] = x[:, 0:2*t:2]",
        "",
        "## The first position of each sequence plus the last.",
        f"fn ends{k}(x: [b n {d}]) -> [b {d}] = x[:, 0] + x[:, -1]",
        "",
        "## The mean of each group of 4 features.",
        f"fn coarse{k}(x: [b n {d}]) -> [b n {d}/4] = reduce(x, b n (e g) -> b n e, mean, g=4)",
        "",
    ]


def _filler(k: int, rng: random.Random) -> list[str]:
    """A three-line elementwise function, to bring the program to its length."""
    if rng.random() < 0.5:
        beta = rng.choice(["1.0", "1.5", "1.702"])
        return [
            f"## Swish with slope {beta}.",
            f"fn swish{k}(x: Real, beta = {beta}) -> Real = x * sigmoid(beta * x)",
            "",
        ]
    return [
        "## A tanh scaled so that inputs of size 1 give outputs of size about 1.",
        f"fn scaled_tanh{k}(x: Real) -> Real = 1.7159 * tanh(0.6667 * x)",
        "",
    ]


_UNITS: tuple[Unit, ...] = (_decoder, _vision, _classifier, _llama, _batch_norm, _tools)
# Every filler is a doc comment, a one-line fn and a blank line.
_FILLER_LINES = 3


def generate_program(lines: int = 2400, seed: int = 0) -> str:
    """A valid ShapeScript program of about `lines` lines, the same for the same seed.

    Whole units are added in a shuffled rotation. When the next one would make
    the program too long, a unit of another kind that still fits is taken
    instead, and once none fits, three-line functions fill the rest. So the
    result is at most three lines short of `lines`, and longer only when
    `lines` is shorter than the file's header.
    """
    rng = random.Random(seed)
    out = _header(seed)
    counter = 0
    rotation: list[Unit] = []
    while True:
        if not rotation:
            rotation = list(_UNITS)
            rng.shuffle(rotation)
        unit = rotation.pop()(counter + 1, rng)
        if len(out) + len(unit) > lines:
            fitting = [
                other
                for other in (make(counter + 1, rng) for make in _UNITS)
                if len(out) + len(other) <= lines
            ]
            if not fitting:
                break
            unit = rng.choice(fitting)
        counter += 1
        out.extend(unit)
    while len(out) + _FILLER_LINES <= lines:
        counter += 1
        out.extend(_filler(counter, rng))
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    lines = int(argv[0]) if argv else 2400
    seed = int(argv[1]) if len(argv) > 1 else 0
    sys.stdout.write(generate_program(lines, seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
