# A dim defined in terms of itself is reported once, at the cycle; the dims of the cycle
# and the dims and types that use them are unknown without another diagnostic.
dim A = B + 1  # E0304
dim B = A + 1
dim C = A * 4

fn first(x: [n A]) -> [n A] = x + 1.0

fn mixed(x: [n A], y: [n B]) -> [n A] = x + y

fn widened(x: [n C]) -> [n C] = x |> softmax(over=C)

fn returned(x: [n 4]) -> [n B] = x
