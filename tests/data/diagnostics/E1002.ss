# From the reference's section on E1002.
devices cuda[0 1]
    shard parameters  # E1002
