"""The game: a pure rules engine, the controller that turns button presses into game actions,
the renderer that turns state into frames, the store, and the app loop around them."""
