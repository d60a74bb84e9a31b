# Audit of "Host scalars" and "Control flow": the types the reference states.
dim D = 8

# int with int is an int, except /; anything with a float is a float.
fn int_sum(a: int, b: int) = a + b  #= int
fn int_division(a: int, b: int) = a / b  #= float
fn with_float(a: int, b: float) = a * b  #= float
fn compared(a: int, b: int) = a < b  #= bool
fn int_for_float(a: int) -> float = a  #= int
# A size used as a value is an int.
fn size_value(x: [n D]) = n * D  #= int

fn both_branches(flag: bool) -> int:
    if flag:
        y = 1
    else:
        y = 2
    return y  #= int

fn counter(k: int) -> int:
    c = 0
    for i in 0..k:
        c = c + 1
    return c  #= int

fn any_positive(x: [n D]) -> int:
    if any(x > 0.0):
        return 1
    return 0
