"""Bridges from trickroom's games to outside tools (optional extras; nothing in trickroom imports these)."""
