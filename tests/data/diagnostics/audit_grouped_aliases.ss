# Audit of "Shapes and sizes > Grouped sizes" and "Shape aliases": one probe per rule.
dim D = 8
dim Images = [b 3 16gh 16gw]
dim Self = [Self 2]  # E2201

fn patchify(img: [b 3 16gh 16gw]) -> [b (gh gw) 768] = rearrange(img, b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c))

# 16gh against 225 has no whole solution.
fn odd_height(img: [1 3 225 224]) = patchify(img)  # E0402

# An alias can't be part of one axis, in arithmetic or as a size, and isn't a value.
fn alias_in_arith(x: [Images * 2]) = x  # E2202
fn alias_as_size(x: [n]) -> [Images + 1] = x  # E2202
fn alias_as_value(x: [n]) = Images  # E0303

# The hint H2201 for `16 gh` where `16gh` was probably meant.
fn spaced(img: [b 3 16 gh 16gw]) -> [b (gh gw) 768] = rearrange(img, b c p gh (gw q) -> b (gh gw) (c p q))  # H2201
