# From the reference's section on E2401.
dim D = 4

fn firsts(x: [n D], k: int) -> [n D] = k |> map(i => x[0])  # E2401
