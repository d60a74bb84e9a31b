# Audit of "Functions and calls": one probe per rule.
dim D = 8

fn recursive(x: [n]) = recursive(x)  # E0306

fn not_every_path(x: [n], flag: bool) -> [n]:  # E0307
    if flag:
        return x

fn loop_may_not_run(x: [n]) -> [n]:  # E0307
    for i in 0..3:
        return x

fn bare_return(x: [n]) -> [n]:
    return  # E0307

fn no_type_no_default(x) = 1  # E0306
fn axis_param_in_fn(x: [n], over: Axis[n]) = x  # E0306
fn size_param_in_fn(x: [n], s: Size[S] = 1) = x  # E0306
fn param_twice(x: [n], x: [n]) = x  # E0302

# Defaults: worked out where the fn is defined, and checked like an argument.
fn default_uses_param(x: int, y: int = x) = y  # E0306
fn default_uses_axis(x: [n], k: int = n) = k  # E0306
fn default_on_shape(x: [n] = 1.0) = x  # E0306
fn default_float_as_int(steps: int = 2.5) = steps  # E0502
fn default_outside_domain(eps: Pos = 0) = eps  # E0501
fn default_negative_unit(p: Unit = -1) = p  # E0501

# Matching arguments.
fn g(x: [n D], scale: float = 1.0) -> [n D] = x
fn too_many(x: [t D]) = g(x, 1.0, 2.0)  # E0406
fn unknown_keyword(x: [t D]) = g(x, shift=1.0)  # E0406
fn given_twice(x: [t D]) = g(x, x=x)  # E0406
fn missing_argument() = g()  # E0406
fn string_for_tensor() = g("a")  # E0412
fn wrong_rank(x: [D]) = g(x)  # E0403

# Index[V] sizes are matched after the shapes.
fn pick(ids: [b] Index[V], e: [V D]) -> [b D] = e[ids]
fn other_vocab(ids: [b] Index[7], e: [8 D]) = pick(ids, e)  # E0507

# Each ?k in a return type is a new unknown size at each call.
fn nonzero(x: [n D]) -> [?k D] = x[sum(x, over=D) != 0]
fn two_calls(x: [n D]) = nonzero(x) + nonzero(x)  # E0401
