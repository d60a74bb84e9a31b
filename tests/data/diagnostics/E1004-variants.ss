# Comments and blank lines may come before the devices line; a declaration may not,
# and a second devices line after that is E1003 (once, not E1004 again).

import python torch
devices cuda[0]  # E1004
devices cuda[0]  # E1003
fn double(x: [n]) -> [n] = x * 2
