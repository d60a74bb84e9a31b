# Extern functions and the prelude: extern declarations (erfc), rest axes (roll,
# linear, flip), Axis, Axes and Size parameters, a Size default from an earlier size,
# an Axis[N] with a dim, and rounded division (the reference's conv2d).
dim D = 64
dim C = 10
dim N = 16
dim Stride = 2

## The complementary error function.
extern fn erfc(x: Real) -> NonNeg = "torch.special.erfc"

extern fn roll(input: [...], shifts: Size[S], dims: Axis[n]) -> [...] = "torch.roll"
extern fn linear(input: [... Din], weight: [Dout Din]) -> [... Dout] = "torch.nn.functional.linear"
extern fn flip(input: [...], dims: Axes[n]) -> [...] = "torch.flip"
extern fn cumsum16(input: [...], axis: Axis[N]) -> [...] = "torch.cumsum"
extern fn conv2d(input: [b Cin H W], weight: [Cout Cin kh kw], bias: [Cout] = none, stride: Size[S] = 1, padding: Size[P] = 0) -> [b Cout (H + 2*P - kh)/S + 1 (W + 2*P - kw)/S + 1] = "torch.nn.functional.conv2d"
extern fn avg_pool(input: [b Ch Hi Wi], kernel_size: Size[K], stride: Size[S] = K) -> [b Ch (Hi - K)/S + 1 (Wi - K)/S + 1] = "torch.nn.functional.avg_pool2d"

fn tail(x: [b D]) -> [b D] NonNeg = erfc(x)

fn shifted(x: [b t D]) -> [b t D] = roll(x, 2, dims=t)

fn reversed(x: [b t D]) -> [b t D] = flip(x, t)

fn classify(x: [b t D], w: [C D]) -> [b t C] = linear(x, w)

fn running(x: [b N]) -> [b N] = cumsum16(x, N)

fn features(img: [b 3 28 32], w1: [16 3 5 5], b1: [16], w2: [32 16 3 3]) -> [b 32 5 6]:
    h = conv2d(img, w1, b1, stride=Stride, padding=1)
    return conv2d(h, w2) |> avg_pool(2)

fn pooled(img: [b 3 32 30]) -> [b 3 10 10] = avg_pool(img, 3)
