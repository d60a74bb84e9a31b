import third  # E2302
