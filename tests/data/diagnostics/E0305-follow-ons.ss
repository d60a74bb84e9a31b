# One mistake, one diagnostic: a dim whose value doesn't divide stays declared with an
# unknown size, so its uses (in parameters, returns, `as`, bodies and other dims) report
# nothing more.
dim D = 10
dim H = 3
dim Dh = D / H  # E0305
dim Twice = Dh * 2

fn scaled(x: [n Dh]) -> [n Dh] = x * 2.0

fn narrowed(x: [n D]) -> [n Dh] = x

fn projected(x: [n Dh], w: [Dh D]) -> [n D] = x @ w

fn doubled(x: [n D]) -> [n Twice] = x |> sum(over=D)

fn asserted(x: [n D]) -> [n D]:
    y = x as [n Dh]
    return x

fn called(x: [4 D]) -> [4 Dh] = scaled(x)
