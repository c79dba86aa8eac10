"""The crowd study flow in the app: link entry, the stages, training."""
