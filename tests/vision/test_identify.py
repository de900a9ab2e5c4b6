"""The committed index classifier loads with onnxruntime and reads clean index crops."""

from __future__ import annotations

import numpy as np
import pytest

from rules.cards import ALL_CODES
from vision.crops import crop_square
from vision.identify import MODELS, IndexClassifier, ModelError
from vision.render import decks

from .conftest import NEEDS_ARTWORK

MODEL = MODELS / "index_classifier.onnx"
pytestmark = pytest.mark.skipif(not MODEL.is_file(), reason="no classifier in models/")


def test_model_loads_with_its_classes():
    model = IndexClassifier.load()
    assert sorted(model.names) == sorted([*ALL_CODES, "none"])
    probs = model.probabilities([np.full((64, 64, 3), 128, np.uint8)] * 3)
    assert probs.shape == (3, 53) and np.allclose(probs.sum(axis=1), 1, atol=1e-3)
    assert model([])[0] == []


def test_bad_model_files_are_refused(tmp_path):
    with pytest.raises(ModelError, match="no classifier"):
        IndexClassifier(tmp_path / "missing.onnx")
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(ModelError, match="not a loadable ONNX model"):
        IndexClassifier(junk)


@NEEDS_ARTWORK
def test_reads_upright_indices_of_a_training_deck(card_cache):
    model = IndexClassifier.load()
    crops, truth = [], []
    for code in ALL_CODES[::3]:
        card = decks.render_card("kde-standard", code, 256)
        paper = np.full(card.shape[:2] + (3,), 90, np.uint8)
        a = card[..., 3:4].astype(np.float32) / 255
        img = (card[..., :3] * a + paper * (1 - a)).astype(np.uint8)
        x1, y1, x2, y2 = decks.index_boxes("kde-standard", code, 256)[0]
        h, w = img.shape[:2]
        crops.append(crop_square(img, (x1 * w, y1 * h, x2 * w, y2 * h)))
        truth.append(code)
    pred, conf = model(crops)
    correct = np.mean([p == t for p, t in zip(pred, truth, strict=True)])
    assert correct >= 0.8, list(zip(truth, pred, strict=True))
