# Indexing: causal[n m] is a [n m] Mask. Value domains > Discrete domains: Mask comes
# from comparisons, !, and, or, any, all and causal; any(x > 0) and sum(x) > 0 are
# [] Masks (Control flow > Conditions).
dim D = 64

fn masks(x: [n D], s: [n m]) -> [n m] Mask:
    allowed = causal[n m]  #= [n m] Mask
    blocked = !causal[n m]  #= [n m] Mask
    positive = x > 0  #= [n D] Mask
    some = any(x > 0)  #= [] Mask
    big = sum(x) > 0  #= [] Mask
    both = allowed and (s > 0)  #= [n m] Mask
    return both
