"""trickroom: an accessible online card room for Bura and Mpourloto."""

__version__ = "0.1.0"
