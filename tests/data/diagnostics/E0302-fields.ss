# A model's fields have different names.
dim D = 4

model M:
    param w: [D] = zeros
    buffer w: [D] = ones  # E0302

fn f(m: M) -> [D] = m.w
