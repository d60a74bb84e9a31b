# Training the small GPT of gpt.ss with AdamW as nanoGPT sets it up: weight decay
# on the matrices only, not on the biases and the LayerNorm weights.
import gpt

## The loss of gpt.ss, for value_and_grad.
fn loss(m: gpt.Gpt, ids: [b n] Index[gpt.V], targets: [b n] Index[gpt.V]) -> [] NonNeg:
    return gpt.loss(m, ids, targets)

## AdamW with nanoGPT's settings. `vectors` is every param with fewer than two
## axes (`lnf_w`, `lnf_b`); the per-layer biases and norm weights are stacked
## along L, so they are named.
fn optimizer(m: gpt.Gpt, steps: int) -> AdamW[gpt.Gpt]:
    return adamw(
        m,
        lr=warmup(100, cosine(6e-4, steps)),
        beta2=0.95,
        weight_decay=0.1,
        no_decay="vectors ln1_w ln1_b ln2_w ln2_b b_fc b_proj",
    )

## One step on a batch, with the gradient's norm clipped to 1; the loss.
fn train_step(mut m: gpt.Gpt, mut opt: AdamW[gpt.Gpt], ids: [b n] Index[gpt.V], targets: [b n] Index[gpt.V]) -> []:
    l, g = value_and_grad(loss, m, ids, targets)
    update(mut m, mut opt, g |> clip_norm(1.0))
    return l
