# A model that holds itself, directly or through another model.
dim D = 4

model Tree:
    param w: [D] = zeros
    left: Tree  # E3401

model Block:
    param w: [D D] = zeros
    inner: Wrapper  # E3401

model Wrapper:
    blocks: [2] Block
