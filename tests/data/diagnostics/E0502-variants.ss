# @ needs one dtype; elementwise arithmetic promotes as torch does.
fn f(x: [n D] bf16, y: [n D] f16, w: [D D] f16) -> [n D]:
    a = x + y
    b = x @ w  # E0502
    return a
