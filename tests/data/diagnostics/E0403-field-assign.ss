# A field assignment keeps the field's shape, dtype and domain; only a model's fields.
dim D = 4

model Net:
    param w: [D D] = zeros
    buffer count: [] i64 = zeros
    buffer var: [D] NonNeg = ones

fn a(mut m: Net, x: [D]):
    m.w = x  # E0403
    m.count = m.count + 1.5  # E0502
    m.var = x  # E0501
    m.bias = x  # E0901
    m.var = square(x)

fn b(x: [D]):
    x.w = x  # E0303
