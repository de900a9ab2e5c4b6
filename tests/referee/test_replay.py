"""nertz replay: unreadable and truncated videos give one clear line and still write the
reports."""

from __future__ import annotations

import json

import cv2
import numpy as np
from typer.testing import CliRunner

from referee.cli import app
from referee.replay import ReplayError, oracle_observer, replay_video
from rules import HouseRules


def _labels(path, frames):
    lines = [{"type": "header", "fps": 10}]
    lines += [{"frame": f, "t_ms": f * 100.0, "cards": [], "hands": []} for f in range(frames)]
    path.write_text("\n".join(json.dumps(x) for x in lines))


def test_unreadable_video_fails_with_one_line(tmp_path):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"not a video at all")
    labels = tmp_path / "bad.labels.jsonl"
    _labels(labels, 1)
    result = CliRunner().invoke(app, ["replay", str(bad), "--oracle", str(labels), "--out",
                                      str(tmp_path / "out"), "--players", "2"])
    assert result.exit_code == 1
    assert "cannot read" in result.output and len(result.output.strip().splitlines()) <= 2


def test_truncated_video_still_writes_everything(tmp_path):
    video = tmp_path / "v.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for i in range(30):
        writer.write(np.full((48, 64, 3), i * 8, np.uint8))
    writer.release()
    data = video.read_bytes()
    video.write_bytes(data[: len(data) * 2 // 3])  # cut the file
    labels = tmp_path / "v.labels.jsonl"
    _labels(labels, 30)
    out = tmp_path / "out"
    report = replay_video(video, out, oracle_observer(labels), HouseRules(), 2)
    for name in ("events.jsonl", "report.json", "report.html"):
        assert (out / name).is_file()
    assert 0 < report["frames"] < 30
    assert report["error"] and "truncated" in report["error"]


def test_missing_video_raises_replay_error(tmp_path):
    labels = tmp_path / "x.labels.jsonl"
    _labels(labels, 1)
    try:
        replay_video(tmp_path / "none.mp4", tmp_path / "o", oracle_observer(labels),
                     HouseRules(), 2)
    except ReplayError as exc:
        assert "cannot read" in str(exc)
    else:
        raise AssertionError("no error for a missing video")


def test_the_report_page_says_why_a_flag_needs_a_look():
    from referee.replay import _html

    report = {"flags": [{"rule": "false_call", "seat": 1, "t_ms": 7000, "frames": [70, 70],
                         "evidence": {"why": "the camera saw seat1's nertz pile empty"}},
                        {"rule": "foundation_suit", "seat": 0, "t_ms": 9000,
                         "frames": [90, 90], "evidence": {}}]}
    page = _html(report, [])
    assert page.count("class='why'") == 1
    assert "the camera saw seat1&#x27;s nertz pile empty" in page


def test_the_camera_pipeline_looks_at_each_frame_once_not_as_a_photo():
    # a photo gets a second, turned look (CardDetector.turned_pass), a look at a rival
    # scale and card boxes parted by their reads; a table camera's frames, every-frame or
    # change-gated, do not: it would triple the detector's time, and parting made phantoms
    from referee.replay import model_observer
    from vision.detector import CardDetector

    class _Counting(CardDetector):
        def __init__(self) -> None:
            super().__init__(None, None)  # type: ignore[arg-type]
            self.looks: list[bool] = []

        def _detect(self, image, regions, scale, pass_size=None, photo=False):  # noqa: ANN001 - the detector's own
            from vision.detections import Detections
            self.looks.append(photo)
            return Detections.empty()

        def scale_candidates(self, image):  # noqa: ANN001
            return [1.0, 0.3]

    class _Model:
        def observe(self, image, dets, frame, t_ms):  # noqa: ANN001
            from vision.observation import Observation
            return Observation(frame, t_ms)

    frame = np.zeros((72, 128, 3), np.uint8)
    photo = _Counting()
    photo(frame)
    assert photo.looks == [True, True, True]
    camera = _Counting()
    observe = model_observer(_Model(), camera, every_frame=True)
    observe(frame, 0, 0.0)
    assert camera.looks == [False] and camera.turned_pass == 0
