"""What a study's figures are computed from, loaded from the Store in one place.

``load``: one project's inputs for the agreement engine (``load_inputs``); ``labels``:
the submitted labels with the study's checks (one provider call) and the recorded
exclusions; ``references``: what evaluators are compared with (majority, Dawid-Skene,
MACE, adjudicated); ``scores``: evaluator scores per configuration (signature), probe
runs and worked examples left out; ``gold``: gold answers and item counts. Reports,
alignment, the audit, the pages and the API read from here; nothing here renders.
"""
