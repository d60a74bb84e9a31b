# From the reference's section on E1001.
devices tpu  # E1001
