devices cpu

dim D = 4

model Cell:
    param w: [D D] = normal(std=0.02)

## The model given, as it is.
fn same(m: M) -> M = m

fn use_cell(m: Cell) -> Cell = same(m)
