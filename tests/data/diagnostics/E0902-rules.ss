# Field rules: unknown sizes, host scalars, models, reserved names and domains.
dim D = 4

model Inner:
    param w: [D] = zeros

model Bad:
    param a: [?k D] = zeros  # E0902
    param b: int = zeros  # E0902
    param c: Inner = zeros  # E0902
    param init: [D] = zeros  # E0902
    param _hidden: [D] = zeros  # E0902
    param train: [D] = zeros  # E0902
    param class: [D] = zeros  # E0902
    param d: [D] Pos = ones  # E0902
    buffer e: [D] Prob over D = zeros  # E0902
    buffer f: [D] Binary = zeros  # E0902
    buffer ok: [D] Index[D] = zeros
    buffer mask: [D] Mask = ones
    param g: [D] f64 = normal(std=0.1)
