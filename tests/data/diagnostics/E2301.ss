import attentoin  # E2301
