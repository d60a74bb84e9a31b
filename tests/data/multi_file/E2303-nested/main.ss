# The error is reported once, at the import that leads to it.
import middle  # E2303

fn k(x: [n middle.broken.D]) = x  # E2304
