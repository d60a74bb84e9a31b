# A model written as a param, and a field without param or buffer that holds no model.
dim D = 4

model Block:
    param w: [D D] = zeros

model Net:
    param attn: Block  # E0902
    u: [D]  # E0902
    v: Block = zeros  # E0902
