"""The face reader: whole upright cards read from their pips, and its fusion with the index
reads."""

from __future__ import annotations

import math
import shutil

import cv2
import numpy as np
import pytest

from vision.face_reader import FaceReader, court_blind, fuse
from vision.identify import MODELS

from .conftest import NEEDS_ARTWORK

HAS_MODEL = pytest.mark.skipif(not (MODELS / "face_reader.onnx").is_file(),
                               reason="no face reader in models/")
NAMES = sorted([r + s for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q",
                                "K") for s in "CDHS"] + ["none"])


def _one_hot(weights: dict[str, float]) -> np.ndarray:
    p = np.full(len(NAMES), 1e-4, np.float32)
    for code, w in weights.items():
        p[NAMES.index(code)] = w
    return p / p.sum()


def test_the_face_decides_between_index_reads_of_number_cards():
    index = _one_hot({"6D": 0.55, "4D": 0.35, "none": 0.02})
    face = _one_hot({"4D": 0.9, "6D": 0.05})
    out = fuse(index, face, NAMES, NAMES)
    assert NAMES[int(out.argmax())] == "4D"
    assert out[NAMES.index("none")] == pytest.approx(index[NAMES.index("none")])
    card = [i for i, n in enumerate(NAMES) if n != "none"]
    assert out[card].sum() == pytest.approx(index[card].sum(), rel=1e-4)


def test_court_cards_lean_on_the_index():
    # the face tells a court card of clubs, not which court: the index decides
    index = _one_hot({"KC": 0.6, "QC": 0.3, "8C": 0.05})
    face = _one_hot({"QC": 0.9, "8C": 0.05})
    assert NAMES[int(fuse(index, face, NAMES, NAMES).argmax())] == "KC"
    blind = court_blind(face, NAMES)
    assert blind[NAMES.index("JC")] == pytest.approx(blind[NAMES.index("KC")])
    # but it still tells a court card from a number card
    index = _one_hot({"8C": 0.5, "QC": 0.45})
    assert NAMES[int(fuse(index, face, NAMES, NAMES).argmax())] == "QC"


def test_a_missing_model_file_gives_no_reader(tmp_path):
    assert FaceReader.load(tmp_path / "face_reader.onnx") is None


def _card_in_frame(deck: str, code: str, long_side: float, angle: float) -> tuple:
    from vision.render.decks import render_card

    card = render_card(deck, code, 256)
    ch, cw = card.shape[:2]
    frame = np.full((240, 240, 3), (60, 110, 40), np.uint8)  # green felt
    s = long_side / ch
    m = cv2.getRotationMatrix2D((cw / 2, ch / 2), angle, s)
    m[:, 2] += (120 - cw / 2, 120 - ch / 2)
    warped = cv2.warpAffine(card, m, (240, 240), flags=cv2.INTER_AREA)
    a = warped[..., 3:4].astype(np.float32) / 255
    frame = (frame * (1 - a) + warped[..., :3] * a).astype(np.uint8)
    ys, xs = np.nonzero(warped[..., 3] > 0)
    return frame, np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], np.float32)


@HAS_MODEL
@NEEDS_ARTWORK
def test_cards_of_a_held_out_deck_are_read_from_their_faces(card_cache):
    # gnome-simplistic is a held-out deck family; a card 60 px long has a ~9 px index, where
    # the index reader alone is often wrong; its pips are what the face reader reads
    reader = FaceReader.load()
    assert reader is not None and "none" in reader.names
    codes = ["4D", "6D", "3S", "9D", "5C", "8H", "10S", "2H"]
    right = 0
    for k, code in enumerate(codes):
        frame, box = _card_in_frame("gnome-simplistic", code, 60, 25 + 40 * k)
        found, probs = reader.read_boxes(frame, box[None])
        assert found[0], code
        right += reader.names[int(probs[0].argmax())] == code
    assert right >= 7, right


@HAS_MODEL
def test_the_reader_does_not_care_which_end_is_up():
    reader = FaceReader.load()
    rng = np.random.default_rng(0)
    img = rng.integers(0, 255, (64, 48, 3), np.uint8)
    a, b = reader.probabilities([img, np.ascontiguousarray(img[::-1, ::-1])])
    assert np.allclose(a, b, atol=1e-5)


@NEEDS_ARTWORK
def test_the_detector_works_without_the_face_reader(card_cache, tmp_path):
    from vision.detector import CardDetector

    for name in ("card_detector.onnx", "index_classifier.onnx"):
        if not (MODELS / name).is_file():
            pytest.skip(f"no {name} in models/")
        shutil.copy(MODELS / name, tmp_path / name)
    detector = CardDetector.load(tmp_path)
    assert detector.face_reader is None
    frame, _box = _card_in_frame("gnome-simplistic", "7H", 120, math.degrees(0.2))
    cards = detector(frame)
    assert len(cards) <= 2



@HAS_MODEL
@NEEDS_ARTWORK
def test_the_top_card_of_a_fanned_column_is_read_from_its_face(card_cache):
    from vision.render.decks import render_card

    # a held-out deck's 6D lying on the 7S of a column, a quarter of a card further down,
    # turned 20°: no lone outline (the two cards are one bright region), a fitted one
    reader = FaceReader.load()
    frame = np.full((240, 240, 3), (60, 110, 40), np.uint8)
    box = None
    for k, code in enumerate(("7S", "6D")):
        card = render_card("gnome-simplistic", code, 256)
        ch, cw = card.shape[:2]
        m = cv2.getRotationMatrix2D((cw / 2, ch / 2), 20.0, 70 / ch)
        m[:, 2] += (120 - cw / 2, 100 - ch / 2)
        m[:, 2] += m[:, :2] @ (0.0, 0.25 * ch * k)
        warped = cv2.warpAffine(card, m, (240, 240), flags=cv2.INTER_AREA)
        a = warped[..., 3:4].astype(np.float32) / 255
        frame = (frame * (1 - a) + warped[..., :3] * a).astype(np.uint8)
        ys, xs = np.nonzero(warped[..., 3] > 0)
        box = np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], np.float32)
    found, probs = reader.read_boxes(frame, box[None])
    assert found[0] and reader.names[int(probs[0].argmax())] == "6D"
    reader.FIT_OUTLINE = False  # without the fit: no outline, no face read
    found, _probs = reader.read_boxes(frame, box[None])
    assert not found[0]
