# Pairs from enumerate or zip must be taken apart by a map or filter.
dim D = 4

fn pairs(x: [n D]) = x |> enumerate(over=n)  # E3205
