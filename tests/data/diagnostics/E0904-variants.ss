# Another model, a tensor where a model is expected, gradients of two models.
dim D = 4

model A:
    param w: [D D] = zeros

model B:
    param w: [D D] = zeros

fn use(m: A) -> [D D] = m.w

fn f(x: [D D]) -> [D D] = use(x)  # E0904

fn g(m: B) -> A = m  # E0904

fn h(a: Grad[A], b: Grad[B]) -> Grad[A] = a + b  # E0904

fn k(b: Grad[B]) -> Grad[A] = b  # E0904
