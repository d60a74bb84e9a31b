# What a data record's field can't be.
dim D = 64

data Digit:
    img: [D]

model Mlp:
    param w: [D] = zeros

logs StepLogs:
    loss: [] mean

data Bad:
    count: int  # E1302
    flag: bool  # E1302
    scale: Real  # E1302
    raw: f32  # E1302
    net: Mlp  # E1302
    example: Digit  # E1302
    batch: [4] Digit  # E1302
    logs: StepLogs  # E1302
    train: Dataset[Digit]  # E1302
    grad: Grad[Mlp]  # E1302
    state: AdamW[Mlp]  # E1302
    lr: Schedule  # E1302
    mode: Mode  # E1302
    sink: LogSink  # E1302
    lambda: [D]  # E1302
    _hidden: [D]  # E1302
    grouped: [(2 ?k)]  # E1302

data Fine:
    pixels: [2 D] u8
    probs: [D] Prob over D
    mask: [D] Mask
    label: [] Index[D]
    type: [D]
