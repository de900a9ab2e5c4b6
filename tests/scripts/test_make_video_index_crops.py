"""Index crops cut from a rendered video come out upright and named by their card."""

from __future__ import annotations

import random
from pathlib import Path

import cv2
import numpy as np
import pytest

from rules import HouseRules
from rules.log import write_log
from rules.simulator import simulate_round
from scripts.make_video_index_crops import NONE, harvest, random_camera, upright_turn

from ..vision.conftest import FAST_DECKS, NEEDS_ARTWORK


def test_upright_turn_undoes_the_cards_quarter_turn() -> None:
    # an index whose top edge runs right (upright), down, left, up in the image
    assert upright_turn([[0, 0], [10, 1], [9, 14], [-1, 13]]) == 0
    assert upright_turn([[0, 0], [-1, 10], [-14, 9], [-13, -1]]) == 1  # turned clockwise
    assert upright_turn([[0, 0], [-10, -1], [-9, -14], [1, -13]]) == 2
    assert upright_turn([[0, 0], [1, -10], [14, -9], [13, 1]]) == 3
    # a bottom-right index is printed upside down on its card
    assert upright_turn([[0, 0], [10, 1], [9, 14], [-1, 13]], "br") == 2
    # 40° askew still takes the nearest quarter turn
    a = np.radians(40)
    assert upright_turn([[0, 0], [10 * np.cos(a), 10 * np.sin(a)], [0, 0], [0, 0]]) == 0


def test_random_cameras_turn_the_table_any_way() -> None:
    rng = random.Random(3)
    yaws = [random_camera(rng, (1280, 720)).yaw_deg for _ in range(200)]
    askew = [abs((y + 45) % 90 - 45) for y in yaws]
    assert max(askew) > 35 and min(askew) < 5


@NEEDS_ARTWORK
@pytest.mark.usefixtures("card_cache")
def test_crops_of_a_rendered_round_read_as_their_folder(tmp_path: Path) -> None:
    from vision.identify import IndexClassifier
    from vision.render.camera import Camera
    from vision.render.video import VideoSettings, render_video

    log = tmp_path / "round.jsonl"
    write_log(simulate_round(2, HouseRules.preset("nertz"), seed=5), log)
    video = tmp_path / "round.mp4"
    settings = VideoSettings(fps=10, size=(1920, 1080), seed=5, decks=FAST_DECKS,
                             camera=Camera(width=1920, height=1080, yaw_deg=120),
                             max_seconds=1.0)
    render_video(log, video, settings)
    out = tmp_path / "crops"
    n = harvest(video, video.with_suffix(".labels.jsonl"), out, "t", 5, random.Random(0))
    files = sorted(out.glob("*/*.png"))
    assert n == len(files) > 20
    faces = [f for f in files if f.parent.name != NONE]
    assert faces and len(files) > len(faces)  # some `none` crops as well
    reader = IndexClassifier.load()
    crops = [cv2.imread(str(f)) for f in faces]
    read, _ = reader(crops)
    right = np.mean([r == f.parent.name for r, f in zip(read, faces, strict=True)])
    assert right > 0.8
    # upside down, the same crops mostly fail: the turn the script chose is what reads
    flipped, _ = reader([np.ascontiguousarray(np.rot90(c, 2)) for c in crops])
    assert np.mean([r == f.parent.name for r, f in zip(flipped, faces, strict=True)]) < right - 0.3


def test_coded_crops_carry_the_codecs_blocks_and_keep_their_shape() -> None:
    torch = pytest.importorskip("torch")
    from scripts.train_index_reader import augment, coded

    g = torch.Generator().manual_seed(0)
    small = torch.rand(6, 3, 11, 11, generator=g)  # noise: what JPEG codes worst
    out = coded(small, g)
    assert out.shape == small.shape and out.dtype == torch.float32
    assert 0 <= float(out.min()) and float(out.max()) <= 1
    assert float((out - small).abs().mean()) > 0.05  # coded, not passed through
    flat = torch.full((2, 3, 11, 11), 0.5)
    assert float((coded(flat, g) - flat).abs().max()) < 0.02  # a flat crop survives
    batch = torch.rand(8, 3, 64, 64, generator=g)
    assert augment(batch, g, low_res=1.0, codec=1.0).shape == batch.shape
