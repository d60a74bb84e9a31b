import second  # E2302
