"""The deck list, the card-code → SVG-id mapping, cached renders and index boxes."""

from __future__ import annotations

import gzip
import re

import numpy as np
import pytest

from rules.cards import ALL_CODES
from vision.render import decks

from .conftest import FAST_DECKS, NEEDS_ARTWORK


def test_svg_ids_of_both_naming_schemes():
    assert decks.svg_id("10H", "kde") == "10_heart"
    assert decks.svg_id("AS", "kde") == "1_spade"
    assert decks.svg_id("KH", "kde") == "king_heart"
    assert decks.svg_id("QS", "gnome") == "spade_queen"
    assert decks.svg_id("AC", "gnome") == "club_1"
    assert decks.svg_id("JD", "gnome") == "diamond_jack"
    assert decks.svg_id("back", "gnome") == "back"
    with pytest.raises(decks.DeckError):
        decks.svg_id("1H", "kde")


def test_split_is_declared_and_families_are_held_out_whole():
    test = decks.deck_names("test", installed_only=False)
    train = decks.deck_names("train", installed_only=False)
    assert len(test) >= 8
    assert not set(test) & set(train)
    families: dict[str, set[str]] = {}
    for info in decks.DECKS.values():
        if info.split != "excluded":
            families.setdefault(info.family, set()).add(info.split)
    assert all(len(s) == 1 for s in families.values()), families
    for name in ("kde-konqi-modern", "kde-xskat-german", "gnome-berlin", "gnome-rheinland",
                 "gnome-swiss-xvii", "gnome-ancient-french", "gnome-lattmann",
                 "gnome-slavic-costumes", "kde-penguins", "gnome-tango-nuevo"):
        assert decks.DECKS[name].split == "excluded" and decks.DECKS[name].reason
        assert name not in test + train


def test_unknown_deck_is_a_clear_error():
    with pytest.raises(decks.DeckError, match="unknown deck 'nope'"):
        decks.deck_info("nope")


def _svg_ids(path) -> set[str]:
    text = gzip.open(path).read().decode("utf-8", "replace")
    return set(re.findall(r'\bid="([^"]+)"', text))


@NEEDS_ARTWORK
@pytest.mark.parametrize("name", decks.deck_names(installed_only=False))
def test_mapping_covers_all_52_codes_and_the_back(name):
    info = decks.deck_info(name)
    if not info.installed:
        pytest.skip(f"{name} not installed")
    mapping = decks.id_map(name)
    assert set(mapping) == set(ALL_CODES) | {"back"}
    assert len(set(mapping.values())) == 53
    missing = set(mapping.values()) - _svg_ids(info.path)
    assert not missing, f"{name} lacks ids {sorted(missing)}"


@NEEDS_ARTWORK
def test_every_installed_svg_is_declared():
    declared = {d.path for d in decks.DECKS.values()}
    assert set(decks.discover_decks()) <= declared


@NEEDS_ARTWORK
def test_render_card_is_cached_card_shaped_bgra(card_cache):
    img = decks.render_card("kde-standard", "QS", 128)
    assert img.dtype == np.uint8 and img.shape[0] == 128 and img.shape[2] == 4
    assert 0.55 < img.shape[1] / img.shape[0] < 0.8
    assert img[64, img.shape[1] // 2, 3] == 255  # opaque middle
    assert img[0, 0, 3] < 128  # rounded corner
    assert (card_cache / "kde-standard" / "128" / "QS.png").is_file()
    again = decks.render_card("kde-standard", "QS", 128)
    assert np.array_equal(img, again)


@NEEDS_ARTWORK
def test_excluded_deck_is_refused(card_cache):
    with pytest.raises(decks.DeckError, match="excluded"):
        decks.render_card("kde-konqi-modern", "AS", 64)


@NEEDS_ARTWORK
@pytest.mark.parametrize("name", FAST_DECKS)
@pytest.mark.parametrize("code", ["AS", "10H", "QD", "7C"])
def test_index_boxes_sit_in_the_corners_on_ink(card_cache, name, code):
    boxes = decks.index_boxes(name, code, 256)
    assert len(boxes) == 2
    (x1, y1, x2, y2), (u1, v1, u2, v2) = boxes
    assert 0 <= x1 < x2 <= 0.3 and 0 <= y1 < y2 <= 0.38  # top-left
    assert 0.7 <= u1 < u2 <= 1 and 0.62 <= v1 < v2 <= 1  # bottom-right
    assert 0.03 < y2 - y1 and 0.02 < x2 - x1
    img = decks.render_card(name, code, 256)
    h, w = img.shape[:2]
    ink = decks.ink_mask(img)
    crop = ink[int(y1 * h):int(np.ceil(y2 * h)), int(x1 * w):int(np.ceil(x2 * w))]
    assert crop.mean() > 0.15
