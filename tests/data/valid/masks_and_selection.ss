# Shapes and sizes > Unknown sizes and Assertions with as: a mask selects rows of an
# unknown size ?k, rows as [196 D] gives it a size, a return type may write ?k, and a
# slice that may not fit its axis has an unknown size (Indexing). Value domains >
# Discrete domains: masks from comparisons, !, and, or, any and causal.
dim D = 64

fn nonzero(x: [n D]) -> [?k D] = x[sum(x, over=D) != 0]

fn nonzero196(x: [n D]) -> [196 D]:
    rows = x[sum(x, over=D) != 0]
    return rows as [196 D]

fn first3(x: [n D]) -> [?k D] = x[0:3]

fn first3_fixed(x: [n D]) -> [3 D] = x[0:3] as [3 D]

fn keep_positive(x: [n D]) -> [n D] = where(x > 0, x, 0.0)

fn banded(scores: [n m]) -> [n m] Mask:
    past = causal[n m]
    return past and scores > 0 or !past

fn masked_scores(s: [b n m]) -> [b n m] = s |> masked_fill(!causal[n m], -inf)
