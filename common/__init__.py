"""Small shared utilities: the registry and the settings reader."""
