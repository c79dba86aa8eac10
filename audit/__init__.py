"""The metric audit: where evaluators and people part ways, item by item and fact by fact.

Analysis on the store's frames (no database, no streamlit). ``audit.categories`` is light
(the command line's choices); ``audit.analysis`` holds the tables and grids (pandas).
"""
