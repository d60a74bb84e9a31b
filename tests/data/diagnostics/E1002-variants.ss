# The two options are well formed; anything else under the devices line is E1002, line by
# line.
devices cpu[0 1]
    shard params
    split H
    shard  # E1002
    split  # E1002
    split H D  # E1002
    replicate everything  # E1002

dim H = 2

fn double(x: [n]) -> [n] = x * 2
