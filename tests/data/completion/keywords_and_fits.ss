# In a call, the keyword arguments first, then values that fit the parameter.
dim D = 8

fn scale(x: [n D], factor = 2.0) -> [n D] = x * factor

fn g(y: [t D], flag: bool) -> [t D]:
    #? y, x=, factor=
    z = scale(
    return y
