# A semantic domain moves with its axis through a pattern, takes the pattern's name for
# it, and becomes its range when the axis is grouped away.
dim V = 16

fn moved(p: [b t V] Prob over V) -> [b V t] Prob over V = p |> rearrange(b t V -> b V t)  #= [b V t] Prob over V

fn renamed(p: [b t V] Prob over V) -> [b V t] = p |> rearrange(b n c -> b c n)  #= [b c n] Prob over c

fn grouped(p: [b t V] Prob over V) -> [b (t V)] = p |> rearrange(b t V -> b (t V))  #= [b (t V)] Unit

fn split_back(p: [b V] LogProb over V) -> [b 4 4] = p |> rearrange(b (h w) -> b h w, h=4)  #= [b h w] (-inf, 0]
