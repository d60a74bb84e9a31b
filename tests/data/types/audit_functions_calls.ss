# Audit of "Functions and calls": the types the reference states.
dim D = 8

fn g(x: [n D], eps: Pos = 1 / D, scale: float = 1.0) -> [n D] = x

# A generic takes the argument axis's name, or its size when it has none.
fn named_argument(x: [t D]) = g(x)  #= [t D]
fn sized_argument(x: [8 D]) = g(x, scale=2.0)  #= [8 D]

# A later function may be called before it is declared.
fn calls_later(x: [t D]) = later(x)  #= [t D]
fn later(x: [n D]) -> [n D] = x

# An Index[V] argument determines a generic no shape does.
fn rows_of(ids: [b] Index[V], w: [D D]) -> [V D]:
    return V |> map(i => w[0])
fn width_from_index(ids: [b] Index[5], w: [D D]) = rows_of(ids, w)  #= [5 D]

# Elementwise functions broadcast their arguments; the body narrows the declared range.
fn signed(x: Real) -> Real = sigmoid(x) * 2.0 - 1.0
fn shifted(x: Real, y: Real) -> Real = x + y
fn use_signed(x: [n D]) = signed(x)  #= [n D] Signed
fn broadcast_args(x: [n D], y: [D]) = shifted(x, y)  #= [n D]

# A declared domain that isn't a range is kept.
fn positive(x: Real) -> Mask = x > 0.0
fn mask_kept(x: [n D]) = positive(x)  #= [n D] Mask
