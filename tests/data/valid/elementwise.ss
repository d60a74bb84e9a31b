# Functions and calls > Elementwise functions: functions whose parameters and return
# type have no shape (the reference's swish and signed), called on tensors of any
# shape, with broadcasting between their arguments; prelude activations.
dim D = 64

## Swish with a fixed slope.
fn swish(x: Real, beta = 1.5) -> Real = x * sigmoid(beta * x)

fn signed(x: Real) -> Real = sigmoid(x) * 2 - 1

fn blend(u: Real, v: Real, t: Unit) -> Real = u * t + v * (1 - t)

fn act(x: [b D]) -> [b D] = x * sigmoid(1.702 * x)

fn scaled(x: [b D], k: float) -> [b D] = swish(x, beta=k) * k

fn activations(x: [b n D]) -> [b n D]:
    a = swish(x)
    s = signed(x)
    return a + s + tanh(x) + relu(x) + gelu(x) + silu(x)

fn mixed(x: [b n D], y: [D], gate: [b n D] Unit) -> [b n D] = blend(x, y, gate)

fn gated(x: [b D]) -> [b D] Signed = signed(x)
