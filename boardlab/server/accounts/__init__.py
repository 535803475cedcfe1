"""Accounts, sessions, ratings and the security headers (docs/accounts.md)."""
