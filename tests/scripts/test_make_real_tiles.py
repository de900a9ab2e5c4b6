"""scripts.make_real_tiles: localiser tiles from the real photos' train split."""

from __future__ import annotations

import cv2
import pytest

from scripts.make_real_tiles import REAL, main

pytestmark = pytest.mark.skipif(not (REAL / "images" / "train").is_dir(),
                                reason="the real photographs (../shared/data) are not here")


def test_real_photo_tiles_label_faces_at_the_localisers_card_size_and_no_backs(tmp_path):
    assert main(["--out", str(tmp_path), "--limit", "4", "--copies", "1"]) == 0
    images = sorted((tmp_path / "images" / "train").glob("real_*.jpg"))
    labels = sorted((tmp_path / "labels" / "train").glob("real_*.txt"))
    assert images and [p.stem for p in images] == [p.stem for p in labels]
    rows, faces = [], []
    for image, label in zip(images, labels, strict=True):
        h, w = cv2.imread(str(image)).shape[:2]
        assert max(w, h) <= 320
        for r in (line.split() for line in label.read_text().splitlines()):
            rows.append(r)
            if r[0] == "1":
                faces.append(max(float(r[3]) * w, float(r[4]) * h))
    classes = {int(r[0]) for r in rows}
    assert 1 in classes and 2 not in classes  # faces labelled; these photos show no backs
    assert all(0.0 <= float(v) <= 1.0 for r in rows for v in r[1:])
    # cards are scaled to the size the localiser was trained on (a 40-64 px median card)
    assert faces and all(30 <= px <= 90 for px in faces)
    assert (tmp_path / "data.yaml").is_file()
