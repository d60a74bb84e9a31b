# ShapeScript has no `**` operator: a power written as Python writes it is one E0201 whose
# fix writes `pow(x, y)`, and the rest of the line is checked as if it had been.
dim L = 6
dim D = 8

model Block:
    param w: [D D] = normal(std=0.02 / (2 * L) ** 0.5)  # E0201

fn scaled(x: [n D]) -> [n D] = x * D ** -0.5  # E0201
