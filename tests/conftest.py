"""Test-wide settings: tests write only to temporary folders (no hypothesis database)."""

from hypothesis import settings

settings.register_profile("nertz", database=None, deadline=None)
settings.load_profile("nertz")
