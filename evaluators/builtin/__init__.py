"""Built-in evaluators; every module here registers one or more evaluators on import."""
