"""Judge-assisted estimates of what people would say: human-only, judge-only, PPI++,
Rogan-Gladen corrected rates, differences between systems and annotation planning.

Pure functions over numpy arrays and pandas frames returning typed dataclasses; no
streamlit and no store access (``workbench_api.estimates`` loads the frames).
"""
