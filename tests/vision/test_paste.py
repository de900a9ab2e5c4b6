"""``vision.render.paste``: rendered cards pasted into photos where it says, clear of the
boxes to avoid, lit like the photo's own paper."""

from __future__ import annotations

import random

import cv2
import numpy as np
import pytest

from vision.render.backs import back_image
from vision.render.paste import paper_colour, paste_cards


def _photo() -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.clip(rng.normal(70, 8, (300, 400, 3)), 0, 255).astype(np.uint8)


def test_a_pasted_card_lies_where_it_is_said_to_and_clear_of_the_boxes_to_avoid():
    photo = _photo()
    avoid = [[0, 0, 180, 300]]  # the left part of the photo holds a card
    card = back_image("solid:c8102e", 128)  # red inside a white margin
    for seed in range(5):
        out, [where] = paste_cards(photo, [card], random.Random(seed), 90, avoid=avoid,
                                   paper=np.array([235.0, 235.0, 235.0]), jpeg=False)
        assert where is not None and out.shape == photo.shape
        x0, y0, x1, y1 = where.box
        assert 0 <= x0 < x1 <= 400 and 0 <= y0 < y1 <= 300
        assert max(0.0, min(x1, 180) - x0) * (y1 - y0) <= 0.15 * (x1 - x0) * (y1 - y0) + 1
        cx, cy = where.quad.mean(axis=0).astype(int)
        b, g, r = out[cy, cx].astype(int)
        assert r > g + 60 and r > b + 60, (seed, out[cy, cx])  # the back's red field
        # well away from the card (its shadow included) the photo is as it was
        mask = np.zeros(photo.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, where.quad.astype(np.int32), 1)
        far = cv2.dilate(mask, np.ones((41, 41), np.uint8)) == 0
        assert np.abs(out[far].astype(int) - photo[far]).max() == 0


def test_the_pasted_paper_takes_the_photos_paper_colour():
    photo = _photo()
    card = back_image("solid:c8102e", 128)
    dim = np.array([110.0, 120.0, 130.0])
    out, [where] = paste_cards(photo, [card], random.Random(1), 90, paper=dim, jpeg=False)
    mask = np.zeros(photo.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, where.quad.astype(np.int32), 1)
    inside = out[cv2.erode(mask, np.ones((3, 3), np.uint8)) > 0].astype(np.float32)
    brightest = np.percentile(inside, 95, axis=0)  # the white margin
    assert np.all(np.abs(brightest - dim) < 25), brightest
    # measured from the real cards of a photo: the bright end of what lies in their boxes
    bright = photo.copy()
    bright[50:150, 50:120] = (200, 210, 220)
    assert np.allclose(paper_colour(bright, [[50, 50, 120, 150]]), (200, 210, 220))


def test_a_card_with_no_room_is_not_pasted_and_a_non_photo_is_refused():
    photo = _photo()
    out, placed = paste_cards(photo, [back_image("solid:c8102e", 128)], random.Random(0),
                              600, jpeg=False)
    assert placed == [None] and np.array_equal(out, photo)
    with pytest.raises(ValueError, match="BGR photo"):
        paste_cards(photo[..., 0], [], random.Random(0), 90)
