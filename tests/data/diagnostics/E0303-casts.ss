# A gradient can't be asserted with as, and nothing converts to a model; a model loaded
# from Python can be asserted to be one.
import python torch
dim D = 4

model Mlp:
    param w: [D D] = zeros

fn a() -> Grad[Mlp] = torch.load("g.pt") as Grad[Mlp]  # E0303

fn b() -> Mlp = torch.load("m.pt") as Mlp

fn c(x: [D D]) -> Mlp = x to Mlp  # E0303

fn d(m: Mlp) -> [D D] = m as [D D]  # E0412
