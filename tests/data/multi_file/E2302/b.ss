import a  # E2302
