# Audit of "Names and scoping" and "Shapes and sizes": the types the reference states.
dim D = 8
dim H = 2
dim Dh = D / H

# Axis names: an Index[V] in a parameter's domain introduces V.
fn index_param(ids: [b] Index[V], table: [V D]) -> [b D] = table[ids]  #= [b D]

# Axis names: stack(..., over=k) with a new k introduces it for later code.
fn stacked(x: [n D], y: [n D]) -> [n D]:
    s = stack(x, y, over=k)  #= [k n D]
    return sum(s, over=k)

# Axis names: a keyword size in a pattern introduces the name; an axis name is a size.
fn kw_size(x: [b n D]) -> float:
    y = rearrange(x, b n (h d) -> b h n d, h=4)  #= [b h n d]
    z = y as [b h n d]  #= [b h n d]
    return sqrt(d)

# Module scope: dims may refer to dims declared after them.
fn later_dims(x: [E]) -> [8] = x  #= [E]
dim E = F * 2
dim F = 4

# Division: 2*n / 2 is n.
fn exact_division(x: [n]) -> [2*n / 2] = x  #= [n]

# Function scope: rebinding a name may change its type.
fn rebinding(x: [n D]) -> [D]:
    y = x
    y = sum(y, over=n)  #= [D]
    return y

# A value may take a function's name, hiding it for the rest of the body.
fn value_hides_fn(x: [n]) -> [n]:
    exp = x * 2.0  #= [n]
    return exp

# Shapeless types: in `as` and `to` they keep the value's shape.
fn shapeless_as(x: [n D]) = x as Signed  #= [n D] Signed
fn shapeless_to(x: [n D] Unit) = x to Signed  #= [n D] Signed
