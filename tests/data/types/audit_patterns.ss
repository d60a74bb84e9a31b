# Audit of "Pattern operations": the types the reference states.
dim D = 8
dim C = 4

# A new name stays in scope after the operation checks.
fn name_stays(x: [b n D]) -> [b n D]:
    y = rearrange(x, b n (h d) -> b h n d, h=2)  #= [b h n d]
    z = y as [b h n d]  #= [b h n d]
    return rearrange(z, b h n d -> b n (h d))

# Groups and numbers on the output give unnamed axes.
fn merged(x: [b n D]) = rearrange(x, b n D -> b (n D))  #= [b (n D)]

# A keyword size known only at run time gives an unknown size (repeat may add names).
fn runtime_size(x: [b D], k: int) = repeat(x, b D -> b D r, r=k)  #= [b D r]

# Renaming the axis a Prob is over carries the domain; grouping it leaves its range.
fn renamed(x: [b C] Prob over C) = rearrange(x, b C -> C b)  #= [C b] Prob over C
fn grouped(x: [b C 2] Prob over C) = rearrange(x, b C t -> b (C t))  #= [b (C t)] Unit

# reduce gives the element type its reduction would.
fn reduced(x: [b C] Prob over C) = reduce(x, b C -> b, max)  #= [b] Unit
