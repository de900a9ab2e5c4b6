"""Back-design registry: register a few crops per seat, match backs of other stills under
other cameras and lights (hard pairs included), unknown designs, save and load."""

from __future__ import annotations

import json
import random

import cv2
import numpy as np
import pytest

from scripts.eval_backs import back_crops, cover_with_hand
from vision.backs_registry import BackDesigns, back_descriptor, local_white
from vision.render import backs as backs_mod

from .conftest import NEEDS_ARTWORK

SIZE = (1280, 720)
#: two hard pairs (two blues, red vs dark red) and two other designs
TABLE = [*backs_mod.HARD_PAIRS[0], *backs_mod.HARD_PAIRS[1], "solid:0b6e4f",
         "dots:14213d:87ceeb:50"]
STRANGER = "ring:c8102e:f4f4f4"  # never registered


def synthetic_back(back_id: str, angle: float, height: int = 60, bg=(60, 110, 40),
                   gain: float = 1.0, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A back rotated by ``angle`` on a plain table (the crop is its bounding box) and the
    white near it (a white card beside it)."""
    return synthetic_back_corners(back_id, angle, height, bg, gain, seed)[:2]


def synthetic_back_corners(back_id: str, angle: float, height: int = 60, bg=(60, 110, 40),
                           gain: float = 1.0, seed: int = 0
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`synthetic_back` and the card's corners in crop pixels."""
    card = backs_mod.back_image(back_id, height)
    h, w = card.shape[:2]
    side = int(2.2 * h)
    img = np.empty((side, side, 3), np.float32)
    img[:] = bg
    img[5:5 + h, 5:5 + w] = (246, 245, 240)  # a face-up card's paper nearby
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    m[:, 2] += (side / 2 - w / 2, side / 2 - h / 2)
    warped = cv2.warpAffine(card, m, (side, side), flags=cv2.INTER_AREA)
    alpha = warped[..., 3:4].astype(np.float32) / 255
    img = img * (1 - alpha) + warped[..., :3].astype(np.float32) * alpha
    rng = np.random.default_rng(seed)
    img = np.clip(img * gain + rng.normal(0, 2, img.shape), 0, 255).astype(np.uint8)
    ys, xs = np.nonzero(warped[..., 3] > 128)
    box = (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    quad = corners @ m[:, :2].T + m[:, 2] - [box[0], box[1]]
    return img[box[1]:box[3], box[0]:box[2]].copy(), local_white(img, box), quad


def test_descriptor_is_rotation_and_exposure_invariant():
    a, b = backs_mod.HARD_PAIRS[0]
    ref = back_descriptor(*synthetic_back(a, 0)[:1], white=synthetic_back(a, 0)[1])
    same, other = [], []
    for k, angle in enumerate((17, 45, 90, 133, 180, 251, 300)):
        gain = 0.7 + 0.05 * k  # below saturation (registration's perturbed copies cover it)
        crop, white = synthetic_back(a, angle, gain=gain, seed=k)
        same.append(np.linalg.norm(back_descriptor(crop, white=white) - ref))
        crop, white = synthetic_back(b, angle, gain=gain, seed=k)
        other.append(np.linalg.norm(back_descriptor(crop, white=white) - ref))
    assert max(same) < min(other), (same, other)


def test_empty_registry_and_bad_input():
    reg = BackDesigns()
    crop = synthetic_back("solid:0b6e4f", 10)[0]
    assert reg.match(crop) == (None, 1.0)
    assert reg.match_many([crop, crop]) == [(None, 1.0)] * 2
    with pytest.raises(ValueError):
        reg.register("x", [])
    with pytest.raises(ValueError):
        back_descriptor(np.zeros((2, 2, 3), np.uint8))


def test_synthetic_registry_tells_designs_apart_and_rejects_strangers():
    ids = [b for pair in backs_mod.HARD_PAIRS[:3] for b in pair]
    reg = BackDesigns()
    for did in ids:
        ex = [synthetic_back(did, a, gain=g, seed=i)
              for i, (a, g) in enumerate(((5, 1.0), (70, 0.85), (200, 1.15)))]
        reg.register(did, [e[0] for e in ex], whites=[e[1] for e in ex])
    rng = random.Random(0)
    crops, whites, truth = [], [], []
    for did in ids:
        for i in range(4):
            crop, white = synthetic_back(did, rng.uniform(0, 360), height=rng.choice((48, 72)),
                                         gain=rng.uniform(0.75, 1.2), seed=10 + i)
            crops.append(crop)
            whites.append(white)
            truth.append(did)
    got = reg.match_many(crops, whites=whites)
    assert [g[0] for g in got] == truth
    assert all(0 < g[1] <= 1 for g in got)
    for stranger in ("stripes:d35400:fdf2e9:135:50", "checks:222222:d4af37:60"):
        crop, white = synthetic_back(stranger, 33)
        assert reg.match(crop, white=white)[0] is None
    # a hand (skin-coloured blob) over a quarter of the card
    for did in ids:
        crop, white = synthetic_back(did, 60, seed=5)
        h, w = crop.shape[:2]
        cv2.ellipse(crop, (0, h // 2), (w // 3, h // 3), 0, 0, 360, (120, 150, 205), -1)
        assert reg.match(crop, white=white)[0] == did
    # straight from a frame: boxes (and corners) of backs
    frame = np.full((200, 300, 3), (40, 90, 130), np.uint8)
    frame[100:160, 100:143] = (246, 245, 240)  # a face-up card beside it
    card = backs_mod.back_image(ids[1], 60)  # 60 x 43 px
    alpha = card[..., 3:4] / 255
    frame[100:160, 150:193] = (frame[100:160, 150:193] * (1 - alpha)
                               + card[..., :3] * alpha).astype(np.uint8)
    box = np.array([[150, 100, 193, 160]])
    corners = np.array([[[150, 100], [193, 100], [193, 160], [150, 160]]], np.float32)
    assert reg.match_frame(frame, box)[0][0] == ids[1]
    assert reg.match_frame(frame, box, corners)[0][0] == ids[1]


def test_registry_with_corners():
    """Registered and matched with the card's corners (the pattern's angle against the
    card's edges counts): checks and diamonds (checks turned by 45 deg) of one colour."""
    ids = ["checks:7a0019:f4f4f4:60", "diamonds:7a0019:f4f4f4:60"]
    reg = BackDesigns()
    for did in ids:
        ex = [synthetic_back_corners(did, a, seed=i) for i, a in enumerate((5, 100, 220))]
        reg.register(did, [e[0] for e in ex], [e[2] for e in ex], [e[1] for e in ex])
    for i, angle in enumerate((30, 75, 160, 290)):
        for did in ids:
            crop, white, quad = synthetic_back_corners(did, angle, seed=20 + i)
            assert reg.match(crop, quad, white)[0] == did
    with pytest.raises(ValueError):
        reg.register(ids[0], [crop])  # corners for all examples of a design or for none


@pytest.fixture(scope="module")
def rendered(card_cache):
    """A registry from 3 crops per seat (stills 0..k), and crops of other stills."""
    examples: dict[str, list] = {b: [] for b in TABLE}
    seed = 100
    while min(len(v) for v in examples.values()) < 3 and seed < 110:
        for crop in back_crops(TABLE, seed, SIZE):
            if len(examples[crop[2]]) < 3:
                examples[crop[2]].append(crop)
        seed += 1
    reg = BackDesigns()
    for did, ex in examples.items():
        reg.register(did, [e[0] for e in ex], whites=[e[4] for e in ex])
    tests = [c for s in range(200, 204) for c in back_crops(TABLE, s, SIZE)]
    strange_table = [STRANGER, *TABLE[1:]]
    strangers = [c for s in range(300, 304) for c in back_crops(strange_table, s, SIZE)
                 if c[2] == STRANGER]
    return reg, tests, strangers


@NEEDS_ARTWORK
def test_rendered_backs_match_their_seat(rendered):
    reg, tests, _ = rendered
    got = reg.match_many([c[0] for c in tests], whites=[c[4] for c in tests])
    right = [g[0] == c[2] for c, g in zip(tests, got, strict=True)]
    hard = [r for r, c in zip(right, tests, strict=True) if c[2] in TABLE[:4]]
    assert len(tests) >= 20 and len(hard) >= 12
    assert np.mean(right) >= 0.95, np.mean(right)
    assert np.mean(hard) >= 0.9, np.mean(hard)
    # a hand over about 30 % of each card
    rng = random.Random(1)
    covered = reg.match_many([cover_with_hand(c[0], rng) for c in tests],
                             whites=[c[4] for c in tests])
    assert np.mean([g[0] == c[2] for c, g in zip(tests, covered, strict=True)]) >= 0.8


@NEEDS_ARTWORK
def test_unregistered_design_is_unknown(rendered):
    reg, _, strangers = rendered
    assert len(strangers) >= 4
    got = reg.match_many([c[0] for c in strangers], whites=[c[4] for c in strangers])
    assert np.mean([g[0] is None for g in got]) >= 0.8, got


@NEEDS_ARTWORK
def test_save_load_and_frame_matching(rendered):
    reg, tests, _ = rendered
    data = json.loads(json.dumps(reg.to_dict()))
    again = BackDesigns.from_dict(data)
    assert again.ids == reg.ids
    crops = [c[0] for c in tests[:6]]
    whites = [c[4] for c in tests[:6]]
    assert again.match_many(crops, whites=whites) == reg.match_many(crops, whites=whites)
    with pytest.raises(ValueError):
        BackDesigns.from_dict({**data, "version": -1})
