# Audit of "Shapes and sizes > Grouped sizes" and "Shape aliases": the types they give.
dim D = 8
dim P = 4
dim Images = [b 3 16gh 16gw]
dim Pair = [Later 2]
dim Later = [n D]

# In a body, gh from 16gh is a generic axis of its own.
fn grouped_body(img: [b 16gh]) -> [b gh] = reduce(img, b (gh p) -> b gh, mean)  #= [b gh]

# In a pattern, 16gh is the group (gh 16) and solves gh.
fn grouped_in_pattern(x: [b 64]) = reduce(x, b 16gh -> b gh, sum)  #= [b gh]

# A dim inside a group needs the parentheses.
fn dim_in_group(x: [b 32]) = rearrange(x, b (gh P) -> b gh P)  #= [b gh P]

# An alias as a whole shape with a domain and a dtype, and among other axes.
fn alias_with_domain(x: Images Unit f16) = x  #= [b 3 16gh 16gw] Unit f16
fn alias_among(x: [Images D]) = x  #= [b 3 16gh 16gw D]

# An alias may use an alias declared after it.
fn alias_before_after(x: Pair) = x  #= [n D 2]

# In a pattern, a name is an axis name, never the alias.
fn alias_in_pattern(x: [a c]) = rearrange(x, Images c -> c Images)  #= [c Images]
