# From the reference's section on E2402.
dim D = 4

fn running(x: [n D]) -> [n D]:
    y = n |> map(i => y[i] * 0.5 + x[i])  # E2402
    return y
