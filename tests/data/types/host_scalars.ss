# Names and scoping > Function scope: a dim or an axis name used as a value is its
# size, a Python int. Host scalars: int with int gives an int, except that / gives a
# float. decisions: sqrt of a size is a host float.
dim D = 768
dim H = 12
dim Dh = D / H

fn sizes(x: [n D]) -> [n D]:
    width = D  #= int
    rows = n  #= int
    more = n + 1  #= int
    ratio = D / H  #= float
    scale = sqrt(Dh)  #= float
    return x / scale
