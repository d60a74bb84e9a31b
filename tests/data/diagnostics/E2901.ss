import newer_build.layers  # E2901
