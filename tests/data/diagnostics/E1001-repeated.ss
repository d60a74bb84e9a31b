# A device number given twice.
devices cuda[0 1 0]  # E1001
