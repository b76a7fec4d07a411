"""Hues and Cues on an LED panel, one folder per layer (lower layers never import higher ones):

- `game`: the pure rules engine and game record;
- `view`: the pure renderer and what it draws with;
- `store`: game records in Redis;
- `config`: the YAML configuration;
- `play`: the players' intents and their one handler, the joystick's controller, the app loop;
- `web`: the phones' companion and the browser pages;
- `commands`: the `hues-console` command.
"""
