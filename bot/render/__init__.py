"""Renderers: images and text boards drawn from game views only (never from an omniscient state)."""
