# A stack of models whose size isn't one number or dim.
dim D = 4

model Block:
    param w: [D D] = zeros

model Net:
    h: [D D] Block  # E3402

model Other:
    h: [n] Block  # E3402
