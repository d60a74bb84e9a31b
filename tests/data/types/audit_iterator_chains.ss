# Audit of "Iterator chains": the types of the reference's examples and stage forms.
dim D = 8
dim C = 4

fn scale_rows(x: [n D], w: [n]) = n |> map(i => x[i] * w[i])  #= [n D]
fn per_row(x: [n D], w: [D C]) = x |> map(row => softmax(row @ w, over=C), over=n)  #= [n C] Prob over C
fn gram(x: [n D]) = x |> map(a => x |> map(b => sum(a * b), over=n), over=n)  #= [n n]
fn table() = 3 |> map(i => D |> map(j => j to f32))  #= [3 D]
fn positive(x: [n D]) = x |> map(row => sum(row), over=n) |> filter(t => t > 0.0) |> sum  #= []

# What a chain iterates: a range, a product of sizes, a tensor's only axis.
fn from_one(x: [n D]) = 1..n |> map(i => i to f32)  #= [n-1]
fn from_zero(x: [n D]) = 0..n |> map(i => x[i])  #= [n D]
fn doubled(x: [n D]) = 2 * n |> map(i => i to f32)  #= [2*n]
fn only_axis(v: [n]) = v |> map(e => e * 2.0)  #= [n]

# zip and enumerate pairs, taken apart by a lambda with two parameters.
fn zipped(x: [n D], y: [n D]) = x |> zip(y, over=n) |> map((a, b) => a + b)  #= [n D]
fn numbered(x: [n D]) = x |> enumerate(over=n) |> map((i, r) => r * 2.0)  #= [n D]
fn kept_pairs(x: [n D], y: [n D]) = x |> zip(y, over=n) |> filter((a, b) => sum(a) > 0.0) |> map((a, b) => a)  #= [?k D]

# Stage forms: a name, a call taking the element first or as `_`, and `to T`.
fn by_name(x: [n D]) = x |> map(gelu, over=n)  #= [n D] [-0.17, inf)
fn as_placeholder(x: [n D] Unit) = x |> map(sub(1.0, _), over=n)  #= [n D] Unit
fn element_first(x: [n D]) = x |> map(clamp(0.0, 1.0), over=n)  #= [n D] Unit
fn converted(x: [n D]) = x |> map(to f16, over=n)  #= [n D] f16

# A map keeps the iterated axis's name, so a reduction can name it.
fn reduce_after(x: [n D]) = x |> map(row => relu(row), over=n) |> sum(over=n)  #= [D] NonNeg
