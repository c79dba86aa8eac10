"""The demo projects: their data (one folder each) and the code that loads them."""
