# Audit of "Names and scoping > Axis names" and "Shapes and sizes": one probe per rule.
dim D = 8
dim P = Q  # E0304
dim Q = P
dim Z = 0  # E0305
dim NEG = 3 - 5  # E0305
dim FRAC = 7 / 2  # E0305
dim NOTDIM = foo + 1  # E0301

# Return types and the types in as can only use sizes already in scope.
fn ret_unknown(x: [n]) -> [m] = x  # E0301
fn as_unknown(x: [n]) = x as [m]  # E0301

# An axis name a block introduces is out of scope after it.
fn block_axis(x: [n D], flag: bool):
    if flag:
        y = rearrange(x, n (a c) -> n a c, a=2)
    return x as [n a 4]  # E0301

# Division must be exact: n / 2 and D / 3 are E0402.
fn inexact(x: [n]) -> [n / 2] = x  # E0402
fn inexact_dim(x: [D / 3]) = x  # E0402

# An unknown size equals only itself, and can't be in a parameter's type.
fn unknown_add(x: [n D]):
    r = x[sum(x, over=D) != 0]
    return r + x  # E0401
fn unknown_param(x: [?k D]) = x  # E0306

# Generic axes are rigid: n isn't 196, and two generics never unify.
fn rigid(x: [n D]) -> [196 D] = x  # E0401
fn two_generics(x: [n D], y: [m D]) -> [n D] = x + y  # E0404
