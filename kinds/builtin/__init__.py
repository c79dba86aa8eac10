"""Built-in task kinds; every module here registers one or more kinds on import."""
