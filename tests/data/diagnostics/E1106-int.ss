# The differentiated function returns integers.
dim D = 4

model Mlp:
    param w: [D D] = zeros

fn count(m: Mlp, x: [b D]) -> [] i64 = sum(x @ m.w > 0 to i64)

fn a(m: Mlp, x: [b D]) -> Grad[Mlp]:
    l, g = value_and_grad(count, m, x)  # E1106
    return g
