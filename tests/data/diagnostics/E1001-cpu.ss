# One CPU is `devices cpu`; `cpu[...]` is for two or more CPU workers.
devices cpu[0]  # E1001
fn double(x: [n]) -> [n] = x * 2
