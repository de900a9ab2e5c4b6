"""Training smoke test: a tiny rendered dataset, one short epoch of each model, ONNX export,
and the runtime loading the result with onnxruntime (no torch at run time)."""

from __future__ import annotations

import importlib.util
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from vision.detector import Localiser
from vision.identify import IndexClassifier

from ..vision.conftest import FAST_DECKS, NEEDS_ARTWORK

pytestmark = [
    pytest.mark.slow, NEEDS_ARTWORK,
    pytest.mark.skipif(importlib.util.find_spec("ultralytics") is None,
                       reason="the train extra is not installed (pip install -e '.[train]')"),
]


def test_detector_trains_exports_and_runs(card_cache, tmp_path, monkeypatch):
    from scripts import make_dataset, train_detector, yolo_train

    monkeypatch.setenv("YOLO_CONFIG_DIR", str(tmp_path / "yolo"))
    data = tmp_path / "cards"
    assert make_dataset.main(["--out", str(data), "--stills", "6", "--tile", "320",
                              "--jobs", "1", "--size", "640x360",
                              "--decks", ",".join(FAST_DECKS)]) == 0
    out = tmp_path / "card_detector.onnx"
    # --time (hours) overrides --epochs: one epoch fits into these 0.4 s
    train_detector.main(["--data", str(data / "data.yaml"), "--epochs", "3", "--time", "0.0001",
                         "--imgsz", "160", "--batch", "4", "--project", str(tmp_path / "runs"),
                         "--out", str(out)])
    results = next((tmp_path / "runs").rglob("results.csv"))
    columns = yolo_train._results_csv(SimpleNamespace(csv=results))
    assert columns["epoch"] == [1]
    # the checkpoints' results without polars are polars' own reading of the file
    import polars

    assert columns == polars.read_csv(results.read_bytes(), infer_schema_length=None).to_dict(
        as_series=False)
    localiser = Localiser(out)
    assert localiser.names == ["index", "face", "back"] and localiser.tile == 160
    assert localiser.levels  # the export is cut at the head, decoded in numpy
    image = cv2.imread(str(next((data / "images" / "train").glob("*.jpg"))))
    dets = localiser(image, [(0, 0, 160, 160)], conf=0.0)
    assert len(dets) > 0 and np.isfinite(dets.xyxy).all()
    # the same boxes and scores as Ultralytics' own full export decodes in its graph
    full = Localiser(next((tmp_path / "runs").rglob("best.onnx")))
    assert not full.levels
    for rects in ([(0, 0, 160, 160)], [(10, 20, 150, 120), (0, 0, 96, 160)]):
        a, b = localiser(image, rects, conf=1e-3), full(image, rects, conf=1e-3)
        assert len(a) == len(b) > 0
        fa = np.c_[a.xyxy, 100 * a.confidence, a.class_id]
        fb = np.c_[b.xyxy, 100 * b.confidence, b.class_id]
        assert np.abs(fa[:, None] - fb[None]).max(axis=2).min(axis=1).max() < 0.05


def test_classifier_trains_exports_and_runs(card_cache, tmp_path, monkeypatch):
    from scripts import make_index_crops, train_index_classifier

    monkeypatch.setenv("YOLO_CONFIG_DIR", str(tmp_path / "yolo"))
    data = tmp_path / "crops"
    make_index_crops.main(["--out", str(data), "--per-card", "1", "--val-per-card", "1",
                           "--decks", "2", "--jobs", "1"])
    out = tmp_path / "index_classifier.onnx"
    train_index_classifier.main(["--data", str(data), "--epochs", "1", "--batch", "16",
                                 "--project", str(tmp_path / "runs"), "--out", str(out)])
    model = IndexClassifier(out)
    assert "none" in model.names and len(model.names) >= 50
    codes, conf = model([np.full((64, 64, 3), 200, np.uint8)])
    assert codes[0] in model.names and 0 <= conf[0] <= 1


def test_face_reader_trains_exports_and_runs(card_cache, tmp_path):
    from scripts import make_face_crops, train_face_reader
    from vision.face_reader import FaceReader

    data = tmp_path / "faces"
    make_face_crops.main(["--out", str(data), "--per-card", "1", "--val-per-card", "1",
                          "--decks", "2", "--jobs", "1"])
    out = tmp_path / "face_reader.onnx"
    train_face_reader.main(["--data", str(data), "--epochs", "1", "--batch", "16",
                            "--work", str(tmp_path / "runs"), "--out", str(out)])
    reader = FaceReader(out)
    assert "none" in reader.names and len(reader.names) == 53 and reader.size == (48, 64)
    codes, conf = reader([np.full((90, 60, 3), 200, np.uint8)])
    assert codes[0] in reader.names and 0 <= conf[0] <= 1


def test_an_exported_face_reader_loads_back_for_fine_tuning():
    import onnxruntime as ort
    import torch

    from scripts.train_face_reader import both_ways, build_model
    from scripts.train_index_reader import load_onnx_weights
    from vision.identify import MODELS

    path = MODELS / "face_reader.onnx"
    if not path.is_file():
        pytest.skip("no face reader in models/")
    # the graph reads its input twice (as is and turned 180°): each convolution is held
    # twice, the second reached through Identity nodes; one torch model takes them
    model = build_model()
    load_onnx_weights(model, path)
    model.eval()
    x = np.random.default_rng(0).random((3, 3, 64, 48), dtype=np.float32)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    want = session.run(None, {session.get_inputs()[0].name: x})[0]
    with torch.no_grad():
        got = both_ways(model, torch.from_numpy(x)).numpy()
    assert np.abs(got - want).max() < 1e-4


def test_back_check_trains_exports_and_runs(card_cache, tmp_path):
    import csv
    import shutil

    from scripts import train_back_check
    from vision.back_check import BackCheck

    if not (train_back_check.REAL / "images").is_dir():
        pytest.skip("no real photos")
    # a few real photos of each split, with their labels
    real = tmp_path / "real"
    for split, count in (("train", 3), ("test", 2)):
        rows = list(csv.DictReader(open(train_back_check.REAL / "images" / f"{split}_labels.csv")))
        names = sorted({r["filename"] for r in rows})[:count]
        (real / "images" / split).mkdir(parents=True)
        for name in names:
            shutil.copy(train_back_check.REAL / "images" / split / name, real / "images" / split)
        with open(real / "images" / f"{split}_labels.csv", "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(r for r in rows if r["filename"] in names)
    out = tmp_path / "back_check.onnx"
    train_back_check.main(["--samples", "120", "--stills", "0", "--epochs", "1", "--vary-backs",
                           "--real", str(real), "--work", str(tmp_path / "runs"),
                           "--out", str(out)])
    assert (tmp_path / "runs" / "false_backs_train.json").is_file()
    check = BackCheck(out)
    assert check.names == ["other", "back"]
    p = check(np.full((100, 100, 3), 120, np.uint8), np.array([[10, 10, 50, 70], [0, 0, 90, 60]]))
    assert p.shape == (2,) and ((0 <= p) & (p <= 1)).all()
