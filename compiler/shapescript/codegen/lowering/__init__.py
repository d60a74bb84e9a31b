"""Lowerings: operations compiled to the faster torch code the checker can prove equal."""
