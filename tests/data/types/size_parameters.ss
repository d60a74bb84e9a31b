# Extern functions and the prelude > Axis and Size parameters: a Size[S] argument is
# a number or a dim, and a default from an earlier size (stride: Size[S] = K) is used
# when the argument is left out; Rounded division works out each axis.
dim Pool = 4

extern fn avg_pool(input: [b C H W], kernel_size: Size[K], stride: Size[S] = K) -> [b C (H - K)/S + 1 (W - K)/S + 1] = "torch.nn.functional.avg_pool2d"

fn pools(x: [n 3 32 30]) -> [n 3 16 15]:
    halves = avg_pool(x, 2)  #= [n 3 16 15]
    sliding = avg_pool(x, 3, 1)  #= [n 3 30 28]
    thirds = avg_pool(x, 3)  #= [n 3 10 10]
    quarters = avg_pool(x, Pool)  #= [n 3 8 7]
    return halves
