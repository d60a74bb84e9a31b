# A tensor, a host scalar and a string have no fields.
fn f(x: [n]) -> [n]:
    return x.foo.bar  # E0301

fn g(x: int) -> int:
    return x.nope  # E0301

fn h() = "abc".size  # E0301
