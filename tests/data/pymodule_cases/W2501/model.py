# Written by hand.
def double(x):
    return x * 2
