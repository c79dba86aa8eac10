"""Views of the metric audit: evaluator results, the fact grid, jobs, the drill-down."""
