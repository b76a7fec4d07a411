"""Keeping games: the record in Redis (or in-memory fakeredis), history, settings and quarantine.
Imports only `console.game` of the project."""
