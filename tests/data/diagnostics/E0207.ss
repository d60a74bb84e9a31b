# From the reference's section on E0207.
x = 1  # E0207
