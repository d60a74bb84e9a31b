devices cpu

import mlp

## Scores of `x`, through another file's model.
fn scores(m: mlp.Mlp, x: [b mlp.D]) -> [b mlp.C] = mlp.forward(m, x)
