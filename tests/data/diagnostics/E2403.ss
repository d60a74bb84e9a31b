# From the reference's section on E2403.
dim D = 4

fn noisy(x: [n D], mode: Mode) -> [n D] = x |> map(row => dropout(row, 0.1, mode), over=n)  # E2403
