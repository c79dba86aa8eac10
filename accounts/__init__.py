"""Accounts and sign-in: users and password hashes, remember-me sessions, the
password-guessing lockout, people, and what an annotator sees of the projects (policy on
the store: free functions taking the store first)."""
