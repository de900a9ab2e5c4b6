"""The strip diagnostic counts a river or waste index as read right, wrong or missed."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from rules import HouseRules
from rules.log import write_log
from rules.simulator import simulate_round
from scripts.diag_strips import strips, summary, tally_frame
from vision.detections import Detections

from ..vision.conftest import FAST_DECKS, NEEDS_ARTWORK


def _card(code: str, place: str, index_box: list[float], visible: float = 1.0) -> dict:
    return {"code": code, "place": place, "face_up": True,
            "indices": [{"corner": "tl", "box": index_box, "visible": visible}]}


def test_a_strip_is_right_wrong_or_missed_by_the_reports_over_its_index() -> None:
    label = {"cards": [
        _card("7H", "seat0:river1", [10, 10, 20, 24]),   # read right
        _card("8S", "seat0:river1", [10, 40, 20, 54]),   # read as another code
        _card("9D", "seat1:waste", [200, 200, 210, 214]),  # no report there
        _card("KC", "seat1:waste", [300, 300, 310, 314], visible=0.5),  # index half hidden
        _card("QC", "lake:0", [400, 400, 410, 414]),       # not a strip
    ]}
    dets = Detections(xyxy=[[8, 8, 22, 26], [8, 38, 22, 56], [298, 298, 312, 316]],
                      confidence=[0.9, 0.9, 0.9], class_id=[0, 0, 0],
                      code=["7H", "6S", "KC"], design=[None, None, None])
    tally: Counter = Counter()
    tally_frame(dets, label, tally)
    assert tally[("seat0", "river", "n")] == 2
    assert tally[("seat0", "river", "right")] == 1
    assert tally[("seat0", "river", "wrong")] == 1
    assert tally[("seat1", "waste", "n")] == 1  # the half-hidden KC is not counted
    assert tally[("seat1", "waste", "right")] == tally[("seat1", "waste", "wrong")] == 0
    assert summary(tally) == ["seat0.river 1/2 (wrong 1)", "seat1.waste 0/1 (wrong 0)"]


@NEEDS_ARTWORK
@pytest.mark.usefixtures("card_cache")
def test_strips_of_a_rendered_round_are_mostly_read(tmp_path: Path) -> None:
    from vision.detector import CardDetector
    from vision.render.camera import Camera
    from vision.render.video import VideoSettings, render_video

    log = tmp_path / "round.jsonl"
    write_log(simulate_round(2, HouseRules.preset("nertz"), seed=5), log)
    settings = VideoSettings(fps=10, size=(1920, 1080), seed=5, decks=FAST_DECKS,
                             camera=Camera(width=1920, height=1080), max_seconds=1.0)
    render_video(log, tmp_path / "round.mp4", settings)
    detector = CardDetector.load()
    detector.scale = 1.0
    tally = strips(tmp_path, detector, every=3)
    n = sum(v for k, v in tally.items() if k[2] == "n")
    right = sum(v for k, v in tally.items() if k[2] == "right")
    assert n >= 16 and {k[0] for k in tally} == {"seat0", "seat1"}
    assert right / n > 0.8  # a square 1080p camera over simple decks
