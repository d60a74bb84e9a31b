"""Lowerings: operations compiled to faster torch code that the checker proves equal."""
