# A type variable that only the return type uses.
dim D = 4

fn make(x: [D]) -> M = x  # E2309
