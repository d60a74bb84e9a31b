# A semantic domain keeps its axis: a Prob over one axis doesn't fit a Prob over another
# position, at a return, a call or an `as`; the same position under another name fits.
dim C = 10

fn wrong_return(x: [n m]) -> [n m] Prob over n = softmax(x, over=m)  # E0501

fn rows(p: [n m] Prob over m) -> [n m] = p

fn wrong_call(x: [n m]) -> [n m] = rows(softmax(x, over=n))  # E0501

fn wrong_as(x: [n m]) -> [n m] = softmax(x, over=m) as [n m] Prob over n  # E0501

fn wrong_log(x: [b C]) -> [b C] LogProb over b = log_softmax(x, over=C)  # E0501

fn renamed_fits(z: [b C]) -> [b C] = rows(softmax(z, over=C))

fn moved_fits(p: [b t C] Prob over C) -> [b C t] Prob over C = p |> rearrange(b t C -> b C t)
