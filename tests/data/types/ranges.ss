# Value domains > Range inference and Functions and calls > Elementwise functions:
# sigmoid(x) is Unit and sigmoid(x) * 2 - 1 is Signed; fn signed(x: Real) -> Real =
# sigmoid(x) * 2 - 1 gives Signed values. Shapes are kept, and messages show a named
# range by name.
dim D = 64

fn signed(x: Real) -> Real = sigmoid(x) * 2 - 1

fn ranges(x: [b D]) -> [b D]:
    u = sigmoid(x)  #= [b D] Unit
    t = sigmoid(x) * 2 - 1  #= [b D] Signed
    s = signed(x)  #= [b D] Signed
    return x
