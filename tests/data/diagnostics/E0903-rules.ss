# Initializer rules: missing, unknown, wrong arguments, dtypes and domains.
dim D = 4

model Bad:
    param a: [D]  # E0903
    param b: [D] = normal(0.0, 1.0, 2.0)  # E0903
    param c: [D] = normal(sd=0.1)  # E0903
    param d: [D] = normal(std=-0.1)  # E0903
    param e: [D] = uniform(1.0, -1.0)  # E0903
    buffer f: [D] i64 = normal(std=1.0)  # E0903
    buffer g: [D] Pos = zeros  # E0903
    buffer h: [D] Unit = uniform(0, 2)  # E0903
    param i: [D] = full  # E0903
    param j: [D] = normal(std=1 / D)
    buffer k: [D] Unit = uniform(0.2, 0.8)
    buffer l: [D] i64 = full(2.5)  # E0502
    buffer m: [D] bool = full(true)
    buffer n: [D] Index[D] = full(D)  # E0903
