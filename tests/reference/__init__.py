"""Plain reference implementations of Bura and Mpourloto, written from /work/shared/rulings.md alone.

They exist only to cross-check the engines (tests/test_reference_crosscheck.py): simple code, no speed
tricks, and no knowledge of how the engines are built beyond their public action strings.
"""
