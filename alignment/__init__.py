"""The alignment loop: every evaluator version of a project against the humans.

Joins the store (runs, results, labels) with the pure statistics of ``agreement/``:
the table of versions (:mod:`alignment.table`), the reliability and bias probes
(:mod:`alignment.probes`) and the version diff (:mod:`alignment.diff`). No streamlit.
"""
