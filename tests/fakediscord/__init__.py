"""Offline fake of Discord."""
