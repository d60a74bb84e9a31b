# An assert over dims that fails (a comparison and a divisibility), ones in a function
# that fail for every size, and a call whose sizes break the callee's assert.
dim T = 32
dim D = 8
assert T + 1 <= T  # E3501
assert T % 5 == 0  # E3501

fn never(x: [n D]) -> [n D]:
    assert n + 1 <= n  # E3501
    return x

fn odd(x: [n D]) -> [n D]:
    assert (2 * n + 1) % 2 == 0  # E3501
    return x

fn head(pos: [T D], x: [n D]) -> [n D]:
    assert n <= T
    return pos[0:n] + x

fn generate(pos: [T D], z: [(T + 1) D]) -> [(T + 1) D]:
    return head(pos, z)  # E3501
