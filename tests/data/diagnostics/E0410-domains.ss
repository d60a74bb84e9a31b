# An `as` can't contradict what is known of the values or change the dtype's kind.
domain Big = [2, 3]

fn masks(m: [n] Mask, s: [n] Unit, x: [n] f32) -> [n]:
    a = m as [n] Real  # E0410
    b = s as [n] Pos
    c = sigmoid(x) as [n] Big  # E0410
    d = x as [n] i64  # E0410
    return s
