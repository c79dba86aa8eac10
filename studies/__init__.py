"""A project's study: its flow settings (consent, guideline, training, survey), its gold
items, who gets which item (assignments: claims, skips, releases) and the selection
draws (policy on the store: free functions taking the store first)."""
