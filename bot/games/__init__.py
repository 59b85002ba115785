"""One package per game kind: its presenter (a discord.py extension named in the game's description)."""
