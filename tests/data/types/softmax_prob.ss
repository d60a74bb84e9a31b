# Value domains > Semantic domains: softmax(z, over=C) gives Prob over C and
# log_softmax gives LogProb over C; masked_fill keeps logits; mean over another axis
# keeps Prob over C. Pipes: each stage takes the previous stage's result.
fn probs(s: [b H n m]) -> [b H n m] Prob over m:
    p = softmax(s, over=m)  #= [b H n m] Prob over m
    return p

fn log_probs(s: [b H n m]) -> [b H n m] LogProb over m = log_softmax(s, over=m)  #= [b H n m] LogProb over m

fn causal_probs(s: [b H n m]) -> [b H n m] Prob over m:
    p = s |> masked_fill(!causal[n m], -inf) |> softmax(over=m)  #= [b H n m] Prob over m
    return p

fn mixture(s: [b H n m]) -> [b H m] Prob over m:
    p = mean(softmax(s, over=m), over=n)  #= [b H m] Prob over m
    return p
