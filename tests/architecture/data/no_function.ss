# A model that no function takes first: the drawing lists its fields.
dim D = 8

model Table:
    param w: [D D] = normal(std=0.1)
    buffer count: [D] i64 = zeros
