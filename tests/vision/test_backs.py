"""Back designs: stable ids, hard pairs that still differ, one different back per seat."""

from __future__ import annotations

import random

import numpy as np
import pytest

from vision.render import backs

from .conftest import NEEDS_ARTWORK


def test_generated_ids_parse_and_draw():
    for back_id in backs.all_backs(include_decks=False):
        img = backs.back_image(back_id, 88)
        assert img.shape == (88, 63, 4) and img.dtype == np.uint8
        assert img[0, 0, 3] < 128 and img[44, 31, 3] == 255


def test_same_id_same_image():
    rng = random.Random(3)
    for _ in range(10):
        back_id = backs.random_back(rng)
        assert np.array_equal(backs.back_image(back_id, 120), backs.back_image(back_id, 120))


@pytest.mark.parametrize("bad", ["", "plaid:ffffff", "solid:12345", "solid:gggggg",
                                 "stripes:111111:ffffff:400:20", "deck:nope", "checks:1:2"])
def test_bad_ids_are_refused(bad):
    with pytest.raises(ValueError):
        backs.parse_back(bad)


@pytest.mark.parametrize("a, b", backs.HARD_PAIRS)
def test_hard_pairs_are_close_but_differ(a, b):
    d = backs.back_distance(a, b)
    assert backs.MIN_DISTANCE <= d < 20, d
    assert not np.array_equal(backs.back_image(a, 64), backs.back_image(b, 64))


def test_hard_pairs_cover_two_blues_and_two_reds():
    kinds = {(a.split(":")[1][:2], b.split(":")[1][:2]) for a, b in backs.HARD_PAIRS}
    assert ("1f", "3b") in kinds  # two blues
    assert ("c8", "7a") in kinds  # red vs dark red


def test_catalog_designs_differ_from_each_other():
    ids = list(backs.CATALOG)
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            assert backs.back_distance(a, b) >= backs.MIN_DISTANCE, (a, b)


@pytest.mark.parametrize("seats", range(2, 9))
def test_assign_backs_one_visibly_different_back_per_seat(seats):
    pool = backs.all_backs(include_decks=False)
    for seed in range(5):
        got = backs.assign_backs(seats, seed, pool=pool)
        assert len(got) == seats == len(set(got))
        for i, a in enumerate(got):
            for b in got[i + 1:]:
                assert backs.back_distance(a, b) >= backs.MIN_DISTANCE
        assert got == backs.assign_backs(seats, seed, pool=pool)


def test_assign_backs_can_put_a_hard_pair_on_the_table():
    pool = list(backs.CATALOG)
    pairs = {frozenset(p) for p in backs.HARD_PAIRS}
    for seed in range(5):
        got = backs.assign_backs(4, seed, hard_pair=True, pool=pool)
        assert any(p <= set(got) for p in pairs)
        got = backs.assign_backs(4, seed, hard_pair=False, pool=pool)
        assert not any(p <= set(got) for p in pairs)


@NEEDS_ARTWORK
def test_deck_back(card_cache):
    img = backs.back_image("deck:kde-standard", 96)
    assert img.shape[0] == 96 and img.shape[2] == 4
    assert backs.back_distance("deck:kde-standard", "solid:c8102e") >= backs.MIN_DISTANCE
