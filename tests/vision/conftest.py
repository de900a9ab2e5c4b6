"""Shared fixtures of the vision tests: a per-session card cache in pytest's temp folder."""

from __future__ import annotations

import pytest

from vision.render import decks

NEEDS_ARTWORK = pytest.mark.skipif(
    not decks.artwork_available(),
    reason="card artwork not installed (run scripts/setup_assets.sh: kdegames-card-data-kf5, "
           "gnome-cards-data, librsvg2-bin)")

#: Quick decks to render in tests (few, simple SVGs).
FAST_DECKS = ("kde-standard", "gnome-simplistic")


@pytest.fixture(scope="session")
def card_cache(tmp_path_factory: pytest.TempPathFactory):
    """Point NERTZ_CACHE at a session temp folder so tests never write elsewhere."""
    path = tmp_path_factory.mktemp("cards")
    mp = pytest.MonkeyPatch()
    mp.setenv("NERTZ_CACHE", str(path))
    yield path
    mp.undo()
