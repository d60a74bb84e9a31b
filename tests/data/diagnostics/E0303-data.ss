# A data record's name as a value or function, with a size, an over or a dtype; Dataset
# with something other than a record, or with a shape; `as` to a batch type.
dim D = 64

data Digit:
    img: [D]

model Mlp:
    param w: [D] = zeros

fn value(batch: [b] Digit) -> int:
    x = Digit  # E0303
    return 0

fn called(batch: [b] Digit) -> int:
    x = Digit(1)  # E0303
    return 0

fn sized(x: Digit[3]) -> int = 0  # E0303

fn with_dtype(x: [b] Digit f32) -> int = 0  # E0303

fn with_domain(x: [b] Digit Unit) -> int = 0  # E0303

fn of_model(train: Dataset[Mlp]) -> int = 0  # E0303

fn of_dim(train: Dataset[D]) -> int = 0  # E0303

fn of_nothing(train: Dataset) -> int = 0  # E0303

fn shaped(train: [n] Dataset[Digit]) -> int = 0  # E0303

fn as_batch(x: [b D]) -> int:
    y = x as [b] Digit  # E0303
    return 0

fn to_dataset(train: Dataset[Digit]) -> int:
    y = train to Dataset[Digit]  # E0303
    return 0

logs StepLogs:
    loss: [] mean

fn logs_batch(x: [b] StepLogs) -> int = 0  # E0303
