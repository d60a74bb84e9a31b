import b  # E2302
