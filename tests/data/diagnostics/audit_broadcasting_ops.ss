# Audit of "Broadcasting by name", "Matrix multiplication", "Operators" and "Pipes".
dim D = 8
dim C = 4

# From the right, sizes must be equal or 1.
fn named_against_number(x: [C D], y: [D 4]) = x + y  # E0401
fn from_right_sizes(x: [n 3], y: [2 3]) = x + y  # E0401
fn unnamed_sizes(x: [n 3], y: [n 4]) = x + y  # E0401

# @: a rank-0 operand, contracted axes of different sizes, mixed dtypes.
fn matmul_scalar(x: [n D], s: [] f32) = x @ s  # E0403
fn matmul_sizes(x: [n D], y: [C D]) = x @ y  # E0401
fn matmul_dtypes(x: [n D] f16, y: [D D] bf16) = x @ y  # E0502

# Operators: a string operand.
fn string_operand(x: [n D]) = x + "a"  # E0412

# Pipes: at most one `_` per stage; masked_fill's mask can't add axes.
fn two_placeholders(x: [n D], y: [n D]) = x |> add(_, _)  # E0205
fn mask_adds_axes(x: [n D], m: [n D k] bool) = masked_fill(x, m, 0.0)  # E0404
