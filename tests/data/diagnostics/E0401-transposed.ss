# A weight written transposed: `x @ m.w` with w: [C D] where [D C] fits gets one E0401,
# whose help asks "did you mean `[D C]`?" and whose fix swaps the axes in the model.
dim C = 3
dim D = 4

model Probe:
    param w: [C D] = normal(std=0.02)

fn logits(m: Probe, x: [b D]) -> [b C] = x @ m.w  # E0401
