import broken  # E2303
