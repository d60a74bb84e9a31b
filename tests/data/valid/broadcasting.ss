# Broadcasting by name > The order rule: by name ([b H n m] + [n m], [n m] +
# [b H n m], [n D] + [D], [n m] + [m n]), from the right ([n 3] + [3], size 1), rank 0,
# and an as that renames an axis so [n D] and [k D] can be added (E0404's fix).
dim D = 64

fn add_bias(s: [b H n m], bias: [n m]) -> [b H n m] = s + bias

fn bias_first(s: [b H n m], bias: [n m]) -> [b H n m] = bias + s

fn per_feature(x: [n D], w: [D]) -> [n D] = x * w

fn transposed(x: [n m], y: [m n]) -> [n m] = x - y

fn from_right(x: [n 3], y: [3]) -> [n 3] = x + y

fn column(x: [n D], scale: [n 1]) -> [n D] = x * scale

fn shifted(x: [n D], s: []) -> [n D] = x + s + 1.0

fn renamed(x: [n D], y: [k D]) -> [n D] = x + (y as [n D])

fn elementwise(x: [b n D], w: [D]) -> [b n D] = maximum(x, w) - minimum(w, x)
