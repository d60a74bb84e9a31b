# Each broken line reports one E0201 saying what was expected, and the next line still parses.
fn missing_body(x: [n]) -> [n]  # E0201
fn missing_operand(x: [n]) -> [n] = x +  # E0201
fn list_literal(x: [n]) -> [n] = [x, x]  # E0201
fn ok(x: [n]) -> [n]:
    dim Inner = 3  # E0201
    y = x
    else:  # E0201
        y = x
    return y
fn no_elif(x: [n], flag: bool) -> [n]:
    if flag:
        return x
    else if flag:  # E0201
        return x
    return x
model Mlp:
    param w: [4 4] = zeros
    w2: [4] = zeros  # E0902
export extern fn erfc(x: Real) -> Real = "torch.special.erfc"  # E0201
extern fn erf(x: Real) -> Real  # E0201
