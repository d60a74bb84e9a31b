# A stack of models written as a param.
dim D = 4
dim L = 2

model Block:
    param w: [D D] = zeros

model Net:
    param h: [L] Block  # E0303
