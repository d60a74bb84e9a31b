# Extern functions and the prelude > Rounded division: a division in an extern fn's
# return type rounds down, as in torch's formula; once the arguments determine every
# size, each axis is a number. The declaration is the reference's own.
extern fn conv2d(input: [b Cin H W], weight: [Cout Cin kh kw], bias: [Cout] = none, stride: Size[S] = 1, padding: Size[P] = 0) -> [b Cout (H + 2*P - kh)/S + 1 (W + 2*P - kw)/S + 1] = "torch.nn.functional.conv2d"

fn convs(x: [n 3 28 32], w: [16 3 5 5], bias: [16]) -> [n 16 13 15]:
    plain = conv2d(x, w)  #= [n 16 24 28]
    same = conv2d(x, w, padding=2)  #= [n 16 28 32]
    strided = conv2d(x, w, stride=2, padding=1)  #= [n 16 13 15]
    coarse = conv2d(x, w, stride=3)  #= [n 16 8 10]
    positional = conv2d(x, w, bias, 2, 1)  #= [n 16 13 15]
    return strided
