"""``scripts.pack_dataset``: a small YOLO dataset packed into one tar, unpacked elsewhere,
reads back as the same labels and readable, re-encoded images with a portable data.yaml."""

from __future__ import annotations

import tarfile

import cv2
import numpy as np
import pytest

from scripts import pack_dataset

YAML = "path: /somewhere/cards\ntrain: images/train\nval: images/val\ntest: images/test\n" \
       "names:\n  0: index\n  1: face\n  2: back\n"


def _dataset(root, counts=(("train", 3), ("val", 2), ("test", 1))):
    rng = np.random.default_rng(0)
    (root / "data.yaml").parent.mkdir(parents=True)
    (root / "data.yaml").write_text(YAML)
    for split, n in counts:
        (root / "images" / split).mkdir(parents=True)
        (root / "labels" / split).mkdir(parents=True)
        for i in range(n):
            image = rng.integers(0, 255, (48, 64, 3), dtype=np.uint8)
            cv2.imwrite(str(root / "images" / split / f"{split}{i}.png"), image)
            (root / "labels" / split / f"{split}{i}.txt").write_text(f"{i % 3} 0.5 0.5 0.2 0.3\n")
    return root


def _unpack(tar_path, into):
    with tarfile.open(tar_path) as tar:
        # (extraction filters came with Python 3.11.4)
        tar.extractall(into, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    return into


@pytest.mark.parametrize("encoding", ["webp", "jpg"])
def test_packed_splits_unpack_to_readable_images_and_same_labels(tmp_path, encoding):
    data = _dataset(tmp_path / "cards")
    out = tmp_path / "out" / "cards.tar"
    images, size = pack_dataset.pack(data, out, 70, encoding, ("train", "val"))
    assert images == 5 and size == out.stat().st_size
    root = _unpack(out, tmp_path / "there") / "cards"
    assert sorted(p.name for p in (root / "images").iterdir()) == ["train", "val"]
    for split in ("train", "val"):
        packed = sorted((root / "images" / split).iterdir())
        assert {p.suffix for p in packed} == {f".{encoding}"}
        for p in packed:
            image = cv2.imread(str(p))
            assert image is not None and image.shape == (48, 64, 3)
            label = root / "labels" / split / f"{p.stem}.txt"
            assert label.read_text() == (data / "labels" / split / label.name).read_text()
    yaml = (root / "data.yaml").read_text()
    assert "path:" not in yaml and "test:" not in yaml
    assert "train: images/train" in yaml and "val: images/val" in yaml and "2: back" in yaml


def test_lower_quality_makes_a_smaller_tar(tmp_path):
    data = _dataset(tmp_path / "cards", (("train", 4),))
    _, high = pack_dataset.pack(data, tmp_path / "high.tar", 95, splits=("train",))
    _, low = pack_dataset.pack(data, tmp_path / "low.tar", 20, splits=("train",))
    assert low < high


def test_bad_input_is_a_one_line_error(tmp_path, capsys):
    data = _dataset(tmp_path / "cards")
    with pytest.raises(ValueError, match="unknown encoding"):
        pack_dataset.pack(data, tmp_path / "x.tar", 70, "gif")
    with pytest.raises(ValueError, match="unknown split 'dev'"):
        pack_dataset.pack(data, tmp_path / "x.tar", 70, splits=("dev",))
    with pytest.raises(ValueError, match="no data.yaml"):
        pack_dataset.pack(tmp_path / "out", tmp_path / "x.tar", 70)
    (data / "images" / "val" / "broken.jpg").write_bytes(b"not an image")
    assert pack_dataset.main([str(data), "--out", str(tmp_path / "x.tar")]) == 2
    assert "broken.jpg: not a readable image" in capsys.readouterr().err
    assert pack_dataset.main([str(data), "--out", str(tmp_path / "x.tar"), "--quality", "0"]) == 2
    assert "--quality must be 1-100" in capsys.readouterr().err
