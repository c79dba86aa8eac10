"""Annotating an item: the item as its annotator labels it (targets, what is missing) and
the actions on it (save, submit, skip, flag, note, next, the study gate), shared by the
Annotate page and the annotation client's routes (no Streamlit here); the time on task
and progress marks a tool's file brings, and admin edits of fact lists."""
