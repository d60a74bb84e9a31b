# Audit of "Broadcasting by name", "Matrix multiplication", "Operators" and "Pipes".
import python torch
dim D = 8
dim C = 4

# A rank-0 operand broadcasts to anything.
fn rank_zero(x: [n m], s: [] f32) = x + s  #= [n m]
# When both line up by name, the left operand's order wins.
fn left_order(x: [n m], y: [m n]) = x + y  #= [n m]
# A repeated name: the ith axis of that name matches the ith.
fn repeated_name(x: [n n], y: [n n]) = x + y  #= [n n]
# From the right: size 1 broadcasts, and the longer operand's leading axes are kept.
fn size_one(x: [n 3], y: [1 3]) = x + y  #= [n 3]
fn leading(x: [n 3], y: [3]) = y + x  #= [n 3]
# A named axis is kept over an unnamed one of the same size.
fn named_kept(x: [4 3], y: [C 3]) = x + y  #= [C 3]

# @: a rank-1 operand loses its contracted axis; leading axes broadcast.
fn matrix_vector(x: [n D], v: [D]) = x @ v  #= [n]
fn vector_matrix(v: [D], x: [D n]) = v @ x  #= [n]
fn batched(x: [b n D], y: [D m]) = x @ y  #= [b n m]
fn names_differ(x: [n (2 4)], y: [D m]) = x @ y  #= [n m]

# A Python value operand makes the result a Python value.
fn python_operand(x: [n D]) = x + torch.zeros(3)  #= Python value

# Pipes: `_` marks where the input goes, and `|> to T` is `to T`.
fn placeholder(x: [n D], y: [D]) = x |> sub(y, _)  #= [n D]
fn pipe_to(x: [n D]) = x |> to f16  #= [n D] f16
fn pipe_chain(x: [n D], w: [D D]) = x |> layer_norm(over=D) |> matmul(w) |> gelu  #= [n D] [-0.17, inf)
