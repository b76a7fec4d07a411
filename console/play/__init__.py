"""Playing: every player's intents and their one handler (`table`), the joystick's controller, and
the app loop around the rules engine, the renderer, the store and the panel."""
