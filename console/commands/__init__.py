"""The `hues-console` command and its sub-commands, on top of every other layer; nothing imports
this folder but the entry point."""
