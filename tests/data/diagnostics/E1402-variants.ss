# Each kind of invalid metric: not a single number, no or an unknown combining word, a
# reserved name.
dim D = 64

model Mlp:
    param w: [D] = zeros

logs StepLogs:
    loss: [2 D] mean  # E1402
    shapeless: f32 sum  # E1402
    model: Mlp last  # E1402
    plain: []  # E1402
    ranged: [] NonNeg  # E1402
    typo: [] i64 average  # E1402
    _hidden: [] mean  # E1402
    class: int sum  # E1402
    fine: [] NonNeg max
    count: int sum
    fine: [] min  # E0302
