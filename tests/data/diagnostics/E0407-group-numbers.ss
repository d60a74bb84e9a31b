# A number inside an input group counts as on the input side.
fn kept(x: [b (gh 16)]) -> [b gh 16] = rearrange(x, b (gh 16) -> b gh 16)

fn other(x: [b (gh 16)]) = rearrange(x, b (gh 16) -> b gh 8)  # E0407
