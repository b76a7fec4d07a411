"""The game itself, pure: the board's cells, the deck, the rules engine, the game record and
who sits in each seat.

Imports nothing of the project outside this folder, does no I/O, reads no clock and draws no
randomness but from the seed kept in the state, so every game replays the same anywhere.
"""
