# From the reference's section on H0601.
#v H0601
## Normalizes with $\sofmax(x)$.
fn f(x: [n]) -> [n] = x
