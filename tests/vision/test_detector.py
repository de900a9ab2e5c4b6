"""Grouping detections into physical cards, with the real classifier, on rendered frames."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from vision.detections import Detections
from vision.detector import BACK, FACE, INDEX, CardDetector
from vision.identify import MODELS, IndexClassifier
from vision.render.scene import random_table, render_still

from .conftest import FAST_DECKS, NEEDS_ARTWORK

pytestmark = pytest.mark.skipif(not (MODELS / "index_classifier.onnx").is_file(),
                                reason="no classifier in models/")


class _NoLocaliser:
    """The grouping step needs no localiser: it is given the boxes."""

    tile = 320


def _truth_boxes(scene) -> Detections:
    boxes, classes = [], []
    for c in scene.cards:
        for ix in c["indices"]:
            boxes.append(ix["box"])
            classes.append(INDEX)
        if c["visible"] >= 0.5:
            boxes.append(c["box"])
            classes.append(FACE if c["face_up"] else BACK)
    return Detections.create(np.array(boxes), np.ones(len(boxes)), classes)


@NEEDS_ARTWORK
def test_each_physical_card_is_reported_once(card_cache):
    scene = render_still(random_table(3, 5), 5, size=(1920, 1080), decks=list(FAST_DECKS[:1]) * 3,
                         backs=["solid:1f4e9a", "solid:c8102e", "solid:0b6e4f"])
    detector = CardDetector(_NoLocaliser(), IndexClassifier.load(), min_code_conf=0.0)
    cards = detector.group(scene.image, _truth_boxes(scene))
    faces = [c for c in scene.cards if c["face_up"] and c["indices"]]
    backs = [c for c in scene.cards if not c["face_up"] and c["visible"] >= 0.5]
    reported = Counter(cards.code)
    assert reported["back"] == len(backs)
    # a card with both indices showing is one card, not two
    assert len(cards) - reported["back"] <= len(faces) + 2
    truth = Counter(c["card"] for c in faces)
    right = sum(min(n, reported[code]) for code, n in truth.items())
    assert right >= 0.6 * len(faces), (truth, reported)
    assert set(cards.class_id) <= {FACE, BACK}


def test_regions_are_cut_into_tiles_inside_the_frame():
    detector = CardDetector(_NoLocaliser(), None)  # type: ignore[arg-type]
    whole = detector.rects(1280, 720)
    assert all(x1 - x0 <= 320 and y1 - y0 <= 320 for x0, y0, x1, y1 in whole)
    cover = np.zeros((720, 1280), bool)
    for x0, y0, x1, y1 in whole:
        cover[y0:y1, x0:x1] = True
    assert cover.all()
    roi = detector.rects(1280, 720, [(1200, 650, 1400, 900), (10, 10, 60, 50), (2000, 0, 2100, 9)])
    assert roi == [(1200, 650, 1280, 720), (10, 10, 60, 50)]
