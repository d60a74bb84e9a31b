# Audit of "Assertions with as": the types the reference states.
import python torch
dim D = 8
dim C = 4

# A symbolic size is accepted, and the result has the asserted axes.
fn symbolic(x: [n D]) = x[sum(x, over=D) != 0] as [196 D]  #= [196 D]
# A dtype of the same kind is accepted.
fn same_kind(x: [n D]) = x as [n D] f16  #= [n D] f16
# as [n] bool asserts a Mask.
fn mask_by_dtype(x: [n D]) = (x > 0.0) as [n D] bool  #= [n D] Mask
# What T doesn't write is kept: the domain, or the shape.
fn keeps_domain(x: [n C] Prob over C) = x as [n C]  #= [n C] Prob over C
fn keeps_shape(x: [n D]) = sigmoid(x) as Unit  #= [n D] Unit
# A range keeps what is known that is narrower.
fn narrower_kept(x: [n D]) = sigmoid(x) as Pos  #= [n D] (0, 1]
fn relu_unit(x: [n D]) = relu(x) as Unit  #= [n D] Unit
# A domain without a shape finds its axis among x's.
fn over_found(x: [n C] Unit) = x as Prob over C  #= [n C] Prob over C
# A Python value gets the asserted type.
fn loaded() = torch.load("w.pt") as [D 3*D]  #= [D 3*D]
