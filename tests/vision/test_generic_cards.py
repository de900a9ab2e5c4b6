"""scripts.generic_cards: generic cards with the corner index drawn in many fonts."""

from __future__ import annotations

import random

import numpy as np

from rules.cards import ALL_CODES
from scripts.generic_cards import generic_card
from scripts.make_index_crops import generic_scene_crops
from vision.crops import CROP_SIZE


def test_every_code_renders_with_its_index_box_inside_the_card_and_inked():
    rng = random.Random(0)
    for _ in range(2):
        for code in ALL_CODES:
            img, (x1, y1, x2, y2) = generic_card(code, rng, height=160)
            h, w = img.shape[:2]
            assert img.dtype == np.uint8 and img.shape[2] == 4
            assert abs(w / h - 63 / 88) < 0.01
            assert 0 <= x1 < x2 <= 0.5 and 0 <= y1 < y2 <= 0.5, (code, (x1, y1, x2, y2))
            box = img[round(y1 * h):round(y2 * h), round(x1 * w):round(x2 * w), :3]
            grey = box.astype(np.float32).mean(axis=2)
            assert (grey < 0.6 * grey.max()).mean() > 0.08, code  # holds rank and pip ink
            assert img[0, 0, 3] < 128 and img[h // 2, w // 2, 3] == 255  # rounded corner
            if code[-1] in "HD":  # red ink
                dark = box[grey < 0.6 * grey.max()].astype(int)
                assert (dark[:, 2] > dark[:, 0] + 40).mean() > 0.5, code


def test_deterministic_per_seed():
    for code in ("10H", "QS", "AC"):
        a_img, a_box = generic_card(code, random.Random(7))
        b_img, b_box = generic_card(code, random.Random(7))
        c_img, _ = generic_card(code, random.Random(8))
        assert a_box == b_box and np.array_equal(a_img, b_img)
        assert not np.array_equal(a_img, c_img)
    a = generic_scene_crops("7D", random.Random(3), 3)
    b = generic_scene_crops("7D", random.Random(3), 3)
    assert len(a) == 3 and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert a[0].shape == (CROP_SIZE, CROP_SIZE, 3)
