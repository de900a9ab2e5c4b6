"""Shared fixtures of the vision tests: a per-session card cache in pytest's temp folder."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.render import decks

NEEDS_ARTWORK = pytest.mark.skipif(
    not decks.artwork_available(),
    reason="card artwork not installed (run scripts/setup_assets.sh: kdegames-card-data-kf5, "
           "gnome-cards-data, librsvg2-bin)")

def paste_card(img: np.ndarray, card: np.ndarray, x: int, y: int) -> None:
    """Blend an RGBA card into ``img`` at (x, y), in place, cut at the image's edge."""
    h, w = card.shape[:2]
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(img.shape[1], x + w), min(img.shape[0], y + h)
    if x1 <= x0 or y1 <= y0:
        return
    part = card[y0 - y:y1 - y, x0 - x:x1 - x]
    a = part[..., 3:4] / 255.0
    img[y0:y1, x0:x1] = (img[y0:y1, x0:x1] * (1 - a) + part[..., :3] * a).astype(np.uint8)


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


def paper_colour(deck: str, code: str) -> np.ndarray:
    """The card's paper colour (BGR) as its artwork shows it."""
    return decks._background(decks.render_card(deck, code, 256))


def index_ink(image: np.ndarray, card: dict, index: dict) -> tuple[float, float]:
    """(share of ink, share of paper) inside a labelled index quad of a frame."""
    x1, y1, x2, y2 = index["box"]
    crop = image[int(math.ceil(y1)):int(y2), int(math.ceil(x1)):int(x2)].astype(np.float32)
    mask = np.zeros(crop.shape[:2], np.uint8)
    quad = np.array(index["quad"]) - [math.ceil(x1), math.ceil(y1)]
    cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
    diff = np.abs(crop[mask.astype(bool)] - paper_colour(card["deck"], card["card"])).sum(axis=1)
    return float((diff > 90).mean()), float((diff < 40).mean())
