# No argument says what a type variable is: a tensor where a model goes, or a value from
# Python; a model and a data record for one variable disagree too.
import python torch

dim D = 4

model A:
    param w: [D] = zeros

data Ex:
    x: [D]

fn first(m: M, x: [D]) -> [D] = x

fn both(m: M, batch: [b] M) -> [D] = m.w

fn from_tensor(x: [D]) -> [D] = first(x, x)  # E2310

fn from_python(x: [D]) -> [D] = first(torch.nn.Linear(4, 4), x)  # E2310

fn mixed(a: A, batch: [b] Ex) -> [D] = both(a, batch)  # E2310
