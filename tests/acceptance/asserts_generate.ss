# Three asserts: one the checker proves, one it leaves to run time, and one a call
# refutes with a counterexample.
dim T = 32
dim D = 8

assert T >= 2 * D

fn window(pos: [T D], x: [n D]) -> [n D]:
    assert n <= T
    return pos[0:n] + x

fn generate(pos: [T D], prompt: [(T + 1) D]) -> [(T + 1) D]:
    return window(pos, prompt)
