"""Finding a card's outline in its box and warping it upright."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import crops
from vision.crops import (
    CARD_SIZE,
    card_look,
    card_outline,
    card_quad,
    edge_fitted_card_quad,
    fitted_card_quad,
    upright_card,
)
from vision.observation import look_distance
from vision.render import decks

from .conftest import FAST_DECKS, NEEDS_ARTWORK


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


def _card_on_pale_table(angle: float, checked: bool = False, seed: int = 0
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A small white card (about 38 × 53 px, a printed frame near its edge, a red pip)
    turned by ``angle`` degrees on a cream laminate, or on a pale checked cloth, with camera
    noise. Returns the image, the card's corners and its box."""
    rng = np.random.default_rng(seed)
    image = np.zeros((300, 300, 3), np.uint8)
    image[:] = (200, 234, 246)  # cream: its darkest channel ~35 levels under the paper's
    if checked:
        yy, xx = np.mgrid[0:300, 0:300]
        image[((yy // 14) + (xx // 14)) % 2 == 0] = (236, 240, 242)  # pale squares
    card = np.full((176, 126, 3), 246, np.uint8)
    cv2.rectangle(card, (9, 9), (116, 166), (60, 60, 60), 3)  # a printed frame
    card[70:110, 45:80] = (40, 40, 220)  # a pip
    m = cv2.getRotationMatrix2D((63, 88), angle, 0.3)
    m[:, 2] += (150 - 63, 150 - 88)
    warped = cv2.warpAffine(card, m, (300, 300), flags=cv2.INTER_AREA)
    inside = cv2.warpAffine(np.full((176, 126), 255, np.uint8), m, (300, 300)) > 127
    image[inside] = warped[inside]
    noisy = image.astype(np.int16) + rng.normal(0, 4, image.shape).round().astype(np.int16)
    image = np.clip(noisy, 0, 255).astype(np.uint8)
    corners = np.array([[0, 0], [126, 0], [126, 176], [0, 176]], np.float32) @ m[:, :2].T + m[:, 2]
    return image, corners, np.concatenate([corners.min(axis=0), corners.max(axis=0)])


def _corner_error(quad: np.ndarray | None, truth: np.ndarray) -> float:
    """The largest distance from a true corner to the nearest found one (inf for None)."""
    if quad is None:
        return float("inf")
    return float(np.linalg.norm(truth[:, None] - quad[None], axis=2).min(axis=1).max())


@pytest.mark.parametrize("angle", [8.0, -12.0, 100.0])
def test_a_card_on_a_pale_table_is_not_taken_for_the_window_it_was_looked_for_in(
        angle, monkeypatch):
    image, truth, box = _card_on_pale_table(angle)
    # the outline of the card: its corners within 3 px (the card is 38 × 53 px)
    assert _corner_error(card_outline(image, box), truth) < 3.0
    found = card_quad(image, box)
    assert found is None or _corner_error(found, truth) < 3.0
    # without the look at what lies around the box, the first split parts the ink from
    # cream and paper alike, and the box's whole window passes for the card
    monkeypatch.setattr(crops, "MAX_PAPER_AROUND", 1.0)
    assert _corner_error(card_quad(image, box), truth) > 5.0


@pytest.mark.parametrize("angle", [18.0, -27.0, -8.0, -50.0])
def test_a_card_on_a_checked_cloth_is_outlined_by_its_edges(angle):
    image, truth, box = _card_on_pale_table(angle, checked=True, seed=1)
    quad = edge_fitted_card_quad(image, box)
    assert _corner_error(quad, truth) < 3.0
    # the rectangle of the same box turned the other way is not taken
    mirrored = truth.copy()
    mirrored[:, 0] = box[0] + box[2] - truth[:, 0]
    assert _corner_error(quad, mirrored) > 5.0
    assert _corner_error(card_outline(image, box), truth) < 3.0


def test_no_edges_no_outline():
    image = np.zeros((300, 300, 3), np.uint8)
    image[:] = (200, 234, 246)
    assert edge_fitted_card_quad(image, (120, 120, 170, 180)) is None  # bare laminate


@pytest.mark.parametrize("angle", [0.0, 38.0])
def test_a_clear_outline_on_a_dark_cloth_is_taken_as_found(angle):
    image, truth = _card_on_table(angle)
    box = np.concatenate([truth.min(axis=0), truth.max(axis=0)])
    quad = card_quad(image, box)
    assert quad is not None
    np.testing.assert_array_equal(card_outline(image, box), quad)


@NEEDS_ARTWORK
@pytest.mark.parametrize("code", ["7H", "QS", "3C"])
def test_a_cards_look_tells_its_deck_under_other_light_and_a_loose_outline(card_cache, code):
    """One code of two decks: the same deck's card seen dimmer, warmer, a little off its
    outline and upside down looks far likelier itself than the other deck's card does."""
    a, b = (decks.render_card(deck, code, 256)[..., :3] for deck in FAST_DECKS)

    def seen_elsewhere(card: np.ndarray) -> np.ndarray:
        h, w = card.shape[:2]
        off = card[int(0.03 * h):, int(0.02 * w):]  # the outline found a little off
        lit = np.clip(off.astype(np.float32) * (0.8, 0.85, 0.95) + 8, 0, 255)
        return cv2.resize(lit.astype(np.uint8), CARD_SIZE)[::-1, ::-1]

    look_a = card_look(cv2.resize(a, CARD_SIZE))
    same = look_distance(look_a, card_look(seen_elsewhere(a)))
    other = look_distance(look_a, card_look(seen_elsewhere(b)))
    assert same * 3 < other
    assert look_distance(look_a, look_a) == 0.0
    with pytest.raises(ValueError, match="other sizes"):
        look_distance(look_a, look_a[:5])


@pytest.mark.parametrize("angle", [-35.0, -20.0, 0.0, 12.0, 30.0, 44.0])
def test_the_angle_cards_lie_turned_by_is_found_from_their_edges(angle):
    image, corners = _card_on_table(angle)
    box = np.concatenate([corners.min(axis=0) - 6, corners.max(axis=0) + 6])
    found, clarity = crops.dominant_angle(image, box[None])
    assert abs(found - angle) <= 2.0
    assert clarity > 0.5  # (an even spread of edges gives 1/9)
    # turning the image back by it stands the card upright: its box is the card's again
    upright, m = crops.turn_image(image, -found)
    back = cv2.transform(corners[None], m)[0]
    w, h = back.max(axis=0) - back.min(axis=0)
    assert abs(w - 126) < 8 and abs(h - 176) < 8


def test_no_edges_give_no_clear_angle():
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 255, (200, 200, 3), dtype=np.uint8)
    _angle, clarity = crops.dominant_angle(noise, np.array([[0, 0, 200, 200]], np.float32))
    assert clarity < 0.2
    assert crops.dominant_angle(noise, np.zeros((0, 4), np.float32)) == (0.0, 0.0)


def test_a_turned_image_has_its_corners_filled_grey_or_with_its_own_edges():
    image = np.zeros((60, 80, 3), np.uint8)
    image[:, :40] = (0, 0, 200)  # left half red, right half blue
    image[:, 40:] = (200, 0, 0)
    grey, m = crops.turn_image(image, 45.0)
    edge, m2 = crops.turn_image(image, 45.0, border=None)
    np.testing.assert_allclose(m, m2)
    assert grey.shape == edge.shape and grey.shape[0] > 60
    assert tuple(grey[0, 0]) == (128, 128, 128)
    # the corners drawn out from the photo's own edge: no flat frame around it
    assert not np.any(np.all(edge == 128, axis=2))
    corners = [edge[0, 0], edge[0, -1], edge[-1, 0], edge[-1, -1]]
    assert all(c.max() >= 150 for c in corners)
