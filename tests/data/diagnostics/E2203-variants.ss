# A grouped size is only an axis of a shape: not in arithmetic, an expression or a dim.
fn widths(img: [b 16gh*2]) -> [b] = sum(img, over=b)  # E2203
fn scale(x: [n]) -> [n] = x * 16gh  # E2203
dim P = 16gh  # E2203
