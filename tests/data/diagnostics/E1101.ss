# From the reference's section on E1101.
dim D = 64

fn double(mut x: [D]) -> [D] = x * 2  # E1101
