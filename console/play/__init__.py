"""Playing: the controller that turns presses into game actions, and the app loop around the rules
engine, the renderer, the store and the panel."""
