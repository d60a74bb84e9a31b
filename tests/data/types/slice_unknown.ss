# Indexing > Slices and Shapes and sizes > Unknown sizes: 0:3 on an axis n that may
# be shorter than 3 has a new unknown size (shown as ?k, the first in the function),
# and an as gives it a size.
dim D = 64

fn maybe_short(x: [n D]) -> [3 D]:
    head = x[0:3]  #= [?k D]
    fixed = head as [3 D]  #= [3 D]
    return fixed
