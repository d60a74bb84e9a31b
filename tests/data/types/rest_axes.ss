# Extern functions and the prelude > Rest axes and Axis and Size parameters: the
# result's ... is the axes the argument's ... had, names included; an Axis[n]
# argument is the name of an axis of the first argument. The declarations are the
# reference's own.
dim D = 64
dim C = 10

extern fn roll(input: [...], shifts: Size[S], dims: Axis[n]) -> [...] = "torch.roll"
extern fn linear(input: [... Din], weight: [Dout Din]) -> [... Dout] = "torch.nn.functional.linear"
extern fn flip(input: [...], dims: Axes[n]) -> [...] = "torch.flip"
extern fn erfc(x: Real) -> NonNeg = "torch.special.erfc"

fn uses(x: [b t D], w: [C D], v: [D]) -> [b t C]:
    y = linear(x, w)  #= [b t C]
    one = linear(v, w)  #= [C]
    shifted = roll(x, 2, dims=t)  #= [b t D]
    flipped = flip(x, t)  #= [b t D]
    tail = erfc(x)  #= [b t D] NonNeg
    return y
