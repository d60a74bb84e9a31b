# From the reference's section on E2312.
dim D = 4

model A:
    param w: [D] = zeros

fn loss(m: A) -> [D] = m.w

fn grad_of(m: M) -> Grad[M]:
    l, g = value_and_grad(loss, m)
    return g

fn f(m: A) -> Grad[A] = grad_of(m)  # E2312
