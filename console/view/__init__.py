"""What the panel shows, pure: the palette, the pixel font, the UI state and the renderer that turns
game state, UI state and time into a Frame. Imports only `console.game` and `hal.frame`."""
