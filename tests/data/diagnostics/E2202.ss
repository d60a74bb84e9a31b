# From the reference's section on E2202.
dim Images = [b 3 16gh 16gw]

fn f(x: [(Images 2)]) -> [b] = sum(x, over=b)  # E2202
