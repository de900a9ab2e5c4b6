"""Finding a card's outline in its box and warping it upright."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.crops import CARD_SIZE, card_quad, fitted_card_quad, upright_card


def _card_on_table(angle: float) -> tuple[np.ndarray, np.ndarray]:
    """A 126×176 white card with a black mark in its top-left corner, turned by ``angle``
    degrees on a dark green cloth; returns the image and the card's corners."""
    image = np.zeros((400, 400, 3), np.uint8)
    image[:] = (40, 90, 30)
    card = np.full((176, 126, 3), 245, np.uint8)
    card[8:40, 6:24] = 0  # the "index"
    m = cv2.getRotationMatrix2D((63, 88), angle, 1.0)
    m[:, 2] += (200 - 63, 200 - 88)
    warped = cv2.warpAffine(card, m, (400, 400), flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    inside = cv2.warpAffine(np.full((176, 126), 255, np.uint8), m, (400, 400)) > 127
    image[inside] = warped[inside]
    corners = np.array([[0, 0], [126, 0], [126, 176], [0, 176]], np.float32)
    return image, corners @ m[:, :2].T + m[:, 2]


@pytest.mark.parametrize("angle", [0.0, 17.0, 38.0, 90.0, 133.0])
def test_a_turned_card_is_outlined_and_warped_upright(angle):
    image, truth = _card_on_table(angle)
    box = np.concatenate([truth.min(axis=0), truth.max(axis=0)])
    quad = card_quad(image, box)
    assert quad is not None
    # every true corner has a found corner within 4 px
    d = np.linalg.norm(truth[:, None] - quad[None], axis=2)
    assert d.min(axis=1).max() < 4.0, (quad, truth)
    card = upright_card(image, quad)
    assert card.shape[:2] == (CARD_SIZE[1], CARD_SIZE[0])
    grey = card.mean(axis=2)
    # the mark is in the top-left or (card upside down) the bottom-right corner
    tl, br = grey[:45, :30].mean(), grey[-45:, -30:].mean()
    assert min(tl, br) < 150 < max(tl, br)


def test_no_card_shape_gives_none():
    image = np.full((200, 200, 3), 60, np.uint8)
    cv2.circle(image, (100, 100), 60, (250, 250, 250), -1)  # a white plate is not a card
    assert card_quad(image, (30, 30, 170, 170)) is None


def _fan(angle: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A fanned column on green cloth: a card turned by ``angle`` degrees with the column's
    next card lying over its lower part, a quarter of a card further down (touching, one
    bright region). Returns the image, the top card's corners and its box."""
    image = np.zeros((400, 400, 3), np.uint8)
    image[:] = (40, 90, 30)
    corners = np.array([[0, 0], [126, 0], [126, 176], [0, 176]], np.float32)
    out = []
    for k, shift in enumerate((0.0, 44.0)):  # the card under, then the top card
        card = np.full((176, 126, 3), 235 + 10 * k, np.uint8)
        card[8:40, 6:24] = 0  # the "index"
        card[70:100, 50:76] = (30, 30, 200)  # a "pip"
        m = cv2.getRotationMatrix2D((63, 88), angle, 0.5)
        m[:, 2] += (200 - 63, 170 - 88)
        m[:, 2] += m[:, :2] @ (0.0, shift)  # down the column: a quarter of the card
        warped = cv2.warpAffine(card, m, (400, 400), flags=cv2.INTER_AREA)
        inside = cv2.warpAffine(np.full((176, 126), 255, np.uint8), m, (400, 400)) > 127
        image[inside] = warped[inside]
        out = corners @ m[:, :2].T + m[:, 2]
    return image, out, np.concatenate([out.min(axis=0), out.max(axis=0)])


@pytest.mark.parametrize("angle", [12.0, 33.0, -21.0, 75.0, 160.0])
def test_the_top_card_of_a_fan_is_fitted_where_its_outline_runs_into_the_next(angle):
    image, truth, box = _fan(angle)
    found = card_quad(image, box)
    if found is not None:  # the card and the strip of the one under it: a card too long
        d = np.linalg.norm(truth[:, None] - found[None], axis=2).min(axis=1)
        assert d.max() > 8.0
    quad = fitted_card_quad(image, box)
    assert quad is not None
    d = np.linalg.norm(truth[:, None] - quad[None], axis=2).min(axis=1)
    # (63 × 88 px) the corners on the cloth within 2 px, those on the card under within 5
    assert d.max() < 5.0 and np.sort(d)[1] < 2.0, (quad, truth)


def test_a_box_on_no_whole_card_is_not_fitted():
    image = np.zeros((300, 300, 3), np.uint8)
    image[:] = (40, 90, 30)
    assert fitted_card_quad(image, (100, 100, 163, 188)) is None  # bare cloth
    image[100:188, 100:163] = 240
    # the box of a strip of a card (the rest under others): no card's shape fits it
    assert fitted_card_quad(image, (100, 100, 163, 122)) is None
