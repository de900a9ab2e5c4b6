"""scripts.make_dataset: YOLO tiles and index crops with a split by deck design and seed."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from rules import HouseRules
from rules.log import write_log
from rules.simulator import simulate_round
from scripts import make_dataset
from vision.render import decks

from .conftest import FAST_DECKS, NEEDS_ARTWORK


def _boxes(label_file):
    rows = [line.split() for line in label_file.read_text().splitlines() if line.strip()]
    return np.array([[float(v) for v in r] for r in rows]).reshape(-1, 5)


@NEEDS_ARTWORK
def test_stills_make_valid_yolo_tiles_and_crops(card_cache, tmp_path):
    out = tmp_path / "ds"
    assert make_dataset.main(["--out", str(out), "--stills", "10", "--tile", "320",
                              "--jobs", "1", "--crops", "--size", "960x540",
                              "--decks", ",".join(FAST_DECKS)]) == 0
    meta = json.loads((out / "dataset.json").read_text())
    assert meta["classes"] == ["index", "face", "back"]
    yaml = (out / "data.yaml").read_text()
    assert "train: images/train" in yaml and "2: back" in yaml
    seen = set()
    for split in ("train", "val", "test"):
        images = sorted((out / "images" / split).glob("*.jpg"))
        assert images, split
        for img_path in images[:20]:
            img = cv2.imread(str(img_path))
            assert img.shape[:2] == (320, 320)
            boxes = _boxes(out / "labels" / split / (img_path.stem + ".txt"))
            if len(boxes):
                assert set(boxes[:, 0].astype(int)) <= {0, 1, 2}
                assert (boxes[:, 1:] >= 0).all() and (boxes[:, 1:] <= 1).all()
                seen |= set(boxes[:, 0].astype(int))
    assert seen == {0, 1, 2}
    crops = list((out / "crops" / "train").glob("*/*.png"))
    assert crops and all(c.parent.name in make_dataset.ALL_CODES for c in crops[:50])


def test_split_is_by_scene_and_tiles_cover_the_frame():
    splits = [make_dataset.split_of(i, 100) for i in range(100)]
    assert splits.count("train") == 80 and splits.count("val") == 10
    rects = list(make_dataset.tiles(1280, 720, 320))
    cover = np.zeros((720, 1280), bool)
    for x0, y0, x1, y1 in rects:
        assert x1 - x0 == 320 and y1 - y0 == 320
        cover[y0:y1, x0:x1] = True
    assert cover.all()
    assert list(make_dataset.tiles(640, 360, 0)) == [(0, 0, 640, 360)]


@NEEDS_ARTWORK
def test_video_frames_become_samples(card_cache, tmp_path):
    log = tmp_path / "round.jsonl"
    write_log(simulate_round(2, HouseRules(), seed=3), log)
    out = tmp_path / "ds"
    n = make_dataset.video_frames(log, out, every=60, seed=1, size=(640, 360), tile=0,
                                  crops=False, split="val", keep_empty=1.0, max_seconds=6.0,
                                  decks=FAST_DECKS)
    assert n == 3  # frames 0, 60, 120 of 6 s at 30 fps
    labels = sorted((out / "labels" / "val").glob("*.txt"))
    assert len(labels) == 3 and all(len(_boxes(p)) > 5 for p in labels)


def test_held_out_decks_never_train():
    if not decks.artwork_available():
        pytest.skip("card artwork not installed")
    assert not set(decks.deck_names("train")) & set(decks.deck_names("test"))
