"""Accounts and sign-in: users and password hashes, remember-me sessions, the
password-guessing lockout."""
