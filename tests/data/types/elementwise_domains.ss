# Value domains > Range inference and Functions and calls > Elementwise functions:
# sigmoid(x) is Unit, and fn signed(x: Real) -> Real = sigmoid(x) * 2 - 1 gives
# Signed values; shapes are kept. Messages show a named range by name.
dim D = 64

fn signed(x: Real) -> Real = sigmoid(x) * 2 - 1

fn ranges(x: [b D]) -> [b D]:
    u = sigmoid(x)  #= [b D] Unit
    s = signed(x)  #= [b D] Signed
    return x
