# Audit of "Names and scoping" (reference), one probe per rule.
import python math
import python math

dim D = 8
dim D = 16  # E0302
fn twice(x: [n]) -> [n] = x
fn twice(x: [n]) -> [n] = x  # E0302
domain Unit = [0, 1]  # E0503
domain f16 = [0, 2]  # E0503

fn later_dims(x: [E]) -> [E] = x
dim E = F * 2
dim F = 4

fn uses_later() -> [] = helper_below(1.0)
fn helper_below(x: Real) -> Real = x

fn own_exp(x: [n]) -> [n] = exp(x)
fn exp(x: Real) -> Real = x

fn rebinding(x: [n D]) -> [D]:
    y = x
    y = sum(y, over=n)
    return y

fn other_function(x: [n]) -> [n] = y_of_other  # E0301
fn holder(y_of_other: [n]) -> [n] = y_of_other

fn misspelled(values: [n]) -> [n] = valuse  # E0301

fn call_a_value(x: [n]) = x(1)  # E0303
fn call_a_dim(x: [n]) = D(1)  # E0303
fn fn_as_value(x: [n]) = twice + x  # E0303
domain Temp = [0.05, 10]
fn domain_as_value(x: [n]) = Temp  # E0303
fn builtin_domain_as_value(x: [n]) = x * Prob  # E0303
fn fn_in_arithmetic(x: [n]) = x * twice  # E0303
fn dim_as_value(x: [n]) -> float = D + n

fn value_named_like_axis(x: [n D]):
    n = 3  # E0303
    D = 4  # E0303
    return x

fn param_named_like_axis(x: [n], n: [n]) = x  # E0303

fn value_hides_fn(x: [n]) -> [n]:
    twice = x
    return twice
