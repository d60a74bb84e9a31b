# An if on a bool known while tracing may return; one on a tensor may not, even when the
# return is in a nested if on a bool.
dim D = 4

export fn ok(x: [n D], flip: bool = false) -> [n D]:
    if flip:
        return -x
    return x

export fn nested(x: [n D], flip: bool = false) -> [n D]:
    if max(x) > 0:
        if flip:
            return -x  # E1706
        y = x
    else:
        y = -x
    return y
