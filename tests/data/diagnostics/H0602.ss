# From the reference's section on H0602.
#v H0602
# Scaled by $\frac{1}{\sqrt{D}$.
fn f(x: [n]) -> [n] = x
