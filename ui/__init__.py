"""Streamlit view helpers shared by app.py and the pages (the only UI code besides pages/)."""
