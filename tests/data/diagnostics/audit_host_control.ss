# Audit of "Host scalars" and "Control flow": one probe per rule.
dim D = 8

fn bool_arithmetic(f: bool) = f + 1  # E0505
fn not_of_int(a: int) = !a  # E0501
fn take_int(a: int) = a
fn float_for_int(a: float) = take_int(a)  # E0502
fn bool_for_int(f: bool) = take_int(f)  # E0502
fn tensor_for_int(x: [] i64) = take_int(x)  # E0805
fn returns_float_as_int(a: float) -> int = a  # E0502
fn returns_tensor_as_int(x: [] i64) -> int = x  # E0805
fn as_int_of_tensor(x: [n D]) = x as int  # E0805

fn tensor_range_end(x: [] i64):
    for i in 0..x:  # E0803
        print(i)

fn loop_over_tensor(x: [n D]):
    for r in x:  # E0804
        print(r)

fn if_on_mask_with_axes(x: [n D]):
    if x > 0.0:  # E0802
        print(1)

fn loop_variable_after(k: int) -> int:
    for i in 0..k:
        y = i
    return i  # E0301

fn bound_in_one_branch(flag: bool) -> int:
    if flag:
        y = 1
    return y  # E0301

fn shape_changed_in_block(x: [n D], flag: bool):
    if flag:
        x = sum(x, over=D)  # E0801
    return x

fn counter_becomes_float(k: int):
    c = 0
    for i in 0..k:
        c = c + 0.5  # E0801
    return c

fn grows_past_unit(x: [n D] Unit, k: int) -> [n D] Unit:
    y = x
    for i in 0..k:
        y = y * 2.0
    return y  # E0501
