"""scripts.make_real_index_crops: index-reader crops from real photos' declared train
splits, and fine-tuning the committed reader from its ONNX on them."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from scripts.make_real_index_crops import REAL, feeder_rows, feeder_split, main, near_a_corner
from vision.detector import MODELS
from vision.identify import IndexClassifier

FEEDER = REAL / "feeder-corners"
needs_feeder = pytest.mark.skipif(not (FEEDER / "labels.csv").is_file(),
                                  reason="the real photographs (../shared/data) are not here")
needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None or importlib.util.find_spec("onnx") is None,
    reason="the train extra is not installed (pip install -e '.[train]')")


@needs_feeder
def test_the_feeder_split_halves_every_card_and_never_changes():
    rows = feeder_rows(FEEDER)
    split = feeder_split(rows)
    assert split == feeder_split(list(reversed(rows)))  # row order does not matter
    assert set(split.values()) == {"train", "test"} and len(split) == len(rows)
    per_card: dict[str, Counter] = {}
    for r in rows:
        per_card.setdefault(r["card"], Counter())[split[r["file"]]] += 1
    for card, counts in per_card.items():
        assert abs(counts["train"] - counts["test"]) <= 1, card
        assert counts["test"] >= 1, card


@needs_feeder
def test_crops_come_from_the_train_split_only(tmp_path):
    main(["--out", str(tmp_path), "--variants", "2"])
    split = feeder_split(feeder_rows(FEEDER))
    train_stems = {Path(f).stem for f, s in split.items() if s == "train"}
    test_stems = {Path(f).stem for f, s in split.items() if s == "test"}
    crops = sorted((tmp_path / "train").glob("*/*.png"))
    stems = {p.stem.removeprefix("feeder-").rsplit("-", 1)[0] for p in crops}
    assert stems == train_stems and not stems & test_stems
    assert len(crops) == 2 * len(train_stems)
    assert {p.parent.name for p in crops} >= {"AS", "10D", "KH", "none"}
    assert not (tmp_path / "val").exists() and not (tmp_path / "test").exists()


def test_an_index_box_counts_only_near_a_corner_of_its_card():
    card = np.array([100, 100, 200, 250], np.float32)
    assert near_a_corner(np.array([102, 104, 112, 130]), card)  # top-left index
    assert near_a_corner(np.array([188, 220, 198, 246]), card)  # bottom-right index
    assert not near_a_corner(np.array([140, 160, 160, 190]), card)  # the middle pip
    assert not near_a_corner(np.array([300, 104, 310, 130]), card)  # another card's


@pytest.mark.slow
@needs_feeder
@needs_torch
def test_the_committed_reader_fine_tunes_from_its_onnx(tmp_path):
    import torch

    from scripts import train_index_reader as tir

    model = tir.build_model()
    tir.load_onnx_weights(model, MODELS / "index_classifier.onnx")
    model.eval()
    committed = IndexClassifier(MODELS / "index_classifier.onnx")
    rng = np.random.default_rng(0)
    crops = [rng.integers(0, 255, (64, 64, 3), dtype=np.uint8) for _ in range(4)]
    x = torch.from_numpy(np.stack([c[..., ::-1] for c in crops]).copy()).permute(0, 3, 1, 2)
    with torch.no_grad():
        mine = tir.class_probabilities(*model(x.float() / 255)).numpy()
    assert np.abs(mine - committed.probabilities(crops)).max() < 1e-4

    data = tmp_path / "real"
    main(["--out", str(data), "--variants", "1"])
    out = tmp_path / "index_classifier.onnx"
    tir.main(["--data", str(data), "--epochs", "1", "--limit", "64", "--batch", "32",
              "--lr", "1e-4", "--init", str(MODELS / "index_classifier.onnx"),
              "--work", str(tmp_path / "runs"), "--out", str(out)])
    tuned = IndexClassifier(out)
    assert tuned.names == committed.names
    probs = tuned.probabilities(crops)
    assert probs.shape == (4, 53) and np.allclose(probs.sum(axis=1), 1.0, atol=1e-3)
    assert not np.allclose(probs, committed.probabilities(crops))  # the weights moved
