"""Pictures of what a function does: a torch worker runs it on an example from its types."""
