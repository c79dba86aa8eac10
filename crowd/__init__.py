"""Crowd studies: workers entering by a study link, the codes they earn, how their
annotation ends, and the study's quality figures (policy on the store: free functions
taking the store first)."""
