"""Competitions hosted by the server: tournaments and ladders whose games are ordinary
server games between accounts (docs/tournaments.md)."""
