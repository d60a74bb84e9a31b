# A dataset is looped over a batch at a time.
dim D = 64

data Digit:
    img: [D]

fn whole(train: Dataset[Digit]) -> int:
    for x in train:  # E0804
        return 1
    return 0

fn shuffled(train: Dataset[Digit]) -> int:
    for x in train |> shuffle(seed=0):  # E0804
        return 1
    return 0
