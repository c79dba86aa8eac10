"""Running evaluators over a project's items: the runner, shared by the CLI and the app."""
