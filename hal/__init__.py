"""Hardware behind small interfaces: LED panel output and input sources.

Nothing here knows about the game; `console` builds these objects from its configuration.
"""
