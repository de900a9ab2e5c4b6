"""nertz replay observes every k-th frame (the others only grabbed), and the real path's
observer detects only where the picture changed unless told to detect on every frame."""

from __future__ import annotations

import json

import cv2
import numpy as np
from typer.testing import CliRunner

import referee.replay as replay_mod
from referee.cli import app
from referee.replay import oracle_observer, pipeline_observer, replay_video
from rules import HouseRules
from vision.observation import Observation


def _video(path, frames: int, fps: float = 30.0) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (64, 48))
    for i in range(frames):
        writer.write(np.full((48, 64, 3), (i * 8) % 256, np.uint8))
    writer.release()


class Recorder:
    """An observer that keeps what it was given: frame numbers, times and images' grey
    level (which frame of the video it really got)."""

    def __init__(self, observe_fps=None):
        self.seen: list[tuple[int, float, int]] = []
        if observe_fps is not None:
            self.observe_fps = observe_fps

    def __call__(self, image, frame, t_ms):
        self.seen.append((frame, t_ms, int(image.mean())))
        return Observation(frame, t_ms, table_found=False)


_VideoCapture = cv2.VideoCapture


class CountingCapture:
    """OpenCV's capture, counting reads (decode and convert) and grabs (decode only)."""

    reads = 0
    grabs = 0

    def __init__(self, *args):
        self.cap = _VideoCapture(*args)

    def read(self, *a):
        CountingCapture.reads += 1
        return self.cap.read(*a)

    def grab(self):
        CountingCapture.grabs += 1
        return self.cap.grab()

    def __getattr__(self, name):
        return getattr(self.cap, name)


def test_stride_observes_every_kth_frame_and_only_grabs_the_rest(tmp_path, monkeypatch):
    video = tmp_path / "v.avi"
    _video(video, 30)
    monkeypatch.setattr(replay_mod.cv2, "VideoCapture", CountingCapture)
    rec = Recorder()
    report = replay_video(video, tmp_path / "out", rec, HouseRules(), 2, observe_fps=10)
    assert [f for f, _t, _g in rec.seen] == list(range(0, 30, 3))
    assert [round(t) for _f, t, _g in rec.seen] == [round(f * 1000 / 30) for f in range(0, 30, 3)]
    # the image handed over is the video's frame of that number, not the next one decoded
    assert all(abs(g - (f * 8) % 256) <= 4 for f, _t, g in rec.seen)
    assert report["frames"] == 30 and report["frames_observed"] == 10 and report["stride"] == 3
    assert report["error"] is None
    assert CountingCapture.reads == 10 + 1  # the last read finds the end
    assert CountingCapture.grabs == 20


def test_observer_rate_is_the_default_and_zero_means_every_frame(tmp_path):
    video = tmp_path / "v.avi"
    _video(video, 12)
    rec = Recorder(observe_fps=15)
    report = replay_video(video, tmp_path / "a", rec, HouseRules(), 2)
    assert report["stride"] == 2 and [f for f, _t, _g in rec.seen] == list(range(0, 12, 2))
    rec = Recorder(observe_fps=15)
    report = replay_video(video, tmp_path / "b", rec, HouseRules(), 2, observe_fps=0)
    assert report["stride"] == 1 and len(rec.seen) == 12


def test_truncated_video_with_a_stride_still_writes_everything(tmp_path):
    video = tmp_path / "v.avi"
    _video(video, 60)
    data = video.read_bytes()
    video.write_bytes(data[: len(data) // 2])
    rec = Recorder()
    report = replay_video(video, tmp_path / "out", rec, HouseRules(), 2, observe_fps=10)
    for name in ("events.jsonl", "report.json", "report.html"):
        assert (tmp_path / "out" / name).is_file()
    assert 0 < report["frames"] < 60 and report["error"] and "truncated" in report["error"]
    assert all(f % 3 == 0 for f, _t, _g in rec.seen)


def test_cli_observe_fps(tmp_path):
    video = tmp_path / "v.avi"
    _video(video, 30)
    labels = tmp_path / "v.labels.jsonl"
    lines = [{"type": "header", "fps": 30}]
    lines += [{"frame": f, "t_ms": f * 1000 / 30, "cards": [], "hands": []} for f in range(30)]
    labels.write_text("\n".join(json.dumps(x) for x in lines))
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["replay", str(video), "--oracle", str(labels), "--out",
                                      str(out), "--players", "2", "--observe-fps", "10"])
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    assert report["stride"] == 3 and report["frames_observed"] == 10
    report = replay_video(video, tmp_path / "o2", oracle_observer(labels), HouseRules(), 2)
    assert report["stride"] == 1  # the oracle path: every frame unless told


def test_pipeline_observer_gates_by_default(tmp_path):
    from vision.incremental import ChangeGatedDetector
    from vision.profile import TableProfile

    profile = TableProfile.propose(2, "rect", 900, 600, markers=True)
    path = tmp_path / "table.toml"
    profile.save(path)
    obs = pipeline_observer(path, full_every_ms=3000)
    assert isinstance(obs.gate, ChangeGatedDetector) and obs.gate.full_every_ms == 3000
    assert obs.observe_fps == 10
    image = np.full((360, 640, 3), 90, np.uint8)
    o = obs(image, 0, 0.0)
    assert o.frame == 0 and obs.gate.stats.full == 1
    obs(image, 1, 100.0)
    assert obs.gate.stats.full == 1 and obs.gate.stats.frames == 2
    every = pipeline_observer(path, every_frame=True)
    assert every.gate is None


def test_cli_real_path_options(tmp_path):
    from vision.profile import TableProfile

    profile = tmp_path / "table.toml"
    TableProfile.propose(2, "rect", 900, 600, markers=True).save(profile)
    video = tmp_path / "v.avi"
    _video(video, 12, fps=30.0)
    for extra, stride, gated in ((["--full-every", "2"], 3, True),
                                 (["--every-frame", "--observe-fps", "0"], 1, False)):
        out = tmp_path / f"out{stride}"
        result = CliRunner().invoke(app, ["replay", str(video), "--profile", str(profile),
                                          "--out", str(out), *extra])
        assert result.exit_code == 0, result.output
        report = json.loads((out / "report.json").read_text())
        assert report["stride"] == stride and report["frames"] == 12
        assert ("detector" in report) == gated and "timing" in report


def test_a_replay_that_never_finds_the_table_or_a_deal_says_why(tmp_path):
    # an observer that never finds the table: the report and the command say so in a line,
    # rather than only "scores None"
    video = tmp_path / "v.avi"
    _video(video, 12)
    report = replay_video(video, tmp_path / "out", Recorder(), HouseRules(), 2)
    assert not report["dealt"] and report["frames_with_table"] == 0
    assert report["note"].startswith("the table was not found in any of the 12 frames")
    saved = json.loads((tmp_path / "out" / "report.json").read_text())
    assert saved["note"] == report["note"]
    assert report["note"] in (tmp_path / "out" / "report.html").read_text()

    class TableNoDeal(Recorder):
        def __call__(self, image, frame, t_ms):
            super().__call__(image, frame, t_ms)
            return Observation(frame, t_ms)  # the table, but no card anywhere

    report = replay_video(video, tmp_path / "out2", TableNoDeal(), HouseRules(), 2)
    assert report["frames_with_table"] == 12
    assert report["note"].startswith("no deal was seen (the table was found in 12 of 12")


def test_a_replay_whose_table_shows_too_few_markers_says_how_many(tmp_path):
    # two of the table's four markers in view (cards on the others): the note says so,
    # not "no markers in view"
    from vision.calibration import MARKER_DICT
    from vision.profile import TableProfile

    path = tmp_path / "table.toml"
    TableProfile.propose(2, "rect", 900, 600, markers=True).save(path)
    frame = np.full((360, 640, 3), 200, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICT)
    for marker_id, x in ((0, 60), (1, 520)):
        code = cv2.aruco.generateImageMarker(dictionary, marker_id, 60)
        frame[40:100, x:x + 60] = cv2.cvtColor(code, cv2.COLOR_GRAY2BGR)
    video = tmp_path / "two.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (640, 360))
    for _ in range(4):
        writer.write(frame)
    writer.release()
    report = replay_video(video, tmp_path / "out", pipeline_observer(path), HouseRules(), 2)
    assert report["frames_with_table"] == 0
    assert "at most 2 of its 4 markers in view at once, 3 needed" in report["note"]


class Failing(Recorder):
    """An observer that fails (as a detector bug or a corrupt frame would) on some frames."""

    def __init__(self, bad):
        super().__init__()
        self.bad = bad

    def __call__(self, image, frame, t_ms):
        if self.bad(frame):
            raise IndexError(f"nothing to read in frame {frame}")
        return super().__call__(image, frame, t_ms)


def test_a_frame_the_observer_fails_on_is_skipped_and_play_goes_on(tmp_path):
    video = tmp_path / "v.avi"
    _video(video, 30)
    rec = Failing(lambda f: f in (6, 9))
    report = replay_video(video, tmp_path / "out", rec, HouseRules(), 2, observe_fps=10)
    assert [f for f, _t, _g in rec.seen] == [0, 3, 12, 15, 18, 21, 24, 27]
    assert report["error"] is None and report["frames"] == 30
    assert report["frames_failed"] == 2
    assert report["failures"][0].startswith("frame 6: IndexError")
    html = (tmp_path / "out" / "report.html").read_text()
    assert "2 frame(s) could not be looked at" in html and "frame 9" in html


def test_failing_on_many_frames_in_a_row_ends_the_replay_and_keeps_the_report(tmp_path,
                                                                              monkeypatch):
    video = tmp_path / "v.avi"
    _video(video, 60)
    monkeypatch.setattr(replay_mod, "MAX_FAILED_IN_A_ROW", 3)
    rec = Failing(lambda f: f >= 12)
    report = replay_video(video, tmp_path / "out", rec, HouseRules(), 2, observe_fps=10)
    assert [f for f, _t, _g in rec.seen] == [0, 3, 6, 9]
    assert report["frames_failed"] == 3 and report["frames"] == 18
    assert "failed on 3 frames in a row" in report["error"]
    assert "frame 12: IndexError" in report["error"]
    assert "up to frame 9" in report["error"]
    for name in ("events.jsonl", "report.json", "report.html"):
        assert (tmp_path / "out" / name).is_file()


def test_a_live_pipeline_skips_a_frame_it_fails_on_and_stops_after_many_in_a_row(
        tmp_path, monkeypatch):
    """The service's vision source (``VisionPipeline.process``) skips a frame its observer
    fails on, as ``nertz replay`` does, and raises a one-line ``SourceError`` (which the
    service reports as the source stopping) only after many failures in a row."""
    import pytest

    from referee.live import SourceError, VisionPipeline

    labels = tmp_path / "v.labels.jsonl"
    lines = [{"type": "header", "fps": 10}]
    lines += [{"frame": f, "t_ms": f * 100, "cards": [], "hands": []} for f in range(40)]
    labels.write_text("\n".join(json.dumps(x) for x in lines))
    pipeline = VisionPipeline({"id": 1, "seats": 2}, HouseRules(), labels=labels)
    observe = pipeline.observe
    bad = {3, 5, 6}

    def failing(image, frame, t_ms):
        if frame in bad or frame >= 20:
            raise IndexError(f"nothing to read in frame {frame}")
        return observe(image, frame, t_ms)

    pipeline.observe = failing
    monkeypatch.setattr(replay_mod, "MAX_FAILED_IN_A_ROW", 3)
    image = np.zeros((48, 64, 3), np.uint8)
    notes = []
    for f in range(20):
        assert pipeline.process(image, f * 100) == [] or f not in bad
        notes += pipeline.failure_notes()
    assert pipeline.failed == 3 and pipeline.frame == 20
    assert pipeline.last_failure == "frame 6: IndexError: nothing to read in frame 6"
    # the service announces the first skipped frame, then one note per NOTE_EVERY more
    assert len(notes) == 1 and "frame 3: IndexError" in notes[0]
    assert notes[0].endswith("1 skipped so far")
    pipeline.NOTE_EVERY = 2
    assert pipeline.failure_notes()[0].endswith("3 skipped so far")  # 1 + 2
    assert pipeline.failure_notes() == []
    pipeline.process(image, 2000)
    assert pipeline.failure_notes() == []
    pipeline.process(image, 2100)
    assert pipeline.failure_notes()[0].endswith("5 skipped so far")
    with pytest.raises(SourceError, match="failed on 3 frames in a row"):
        pipeline.process(image, 2200)


def test_frames_are_decoded_ahead_on_their_own_thread_and_it_stops_with_the_replay(
        tmp_path, monkeypatch):
    """The video is decoded on a thread of its own while the observer works (the frames
    it gets are the same), and that thread ends when the replay stops early."""
    import threading

    video = tmp_path / "v.avi"
    _video(video, 90)
    decoded_on: set[str] = set()

    class Capture(CountingCapture):
        def read(self, *a):
            decoded_on.add(threading.current_thread().name)
            return self.cap.read(*a)

    monkeypatch.setattr(replay_mod.cv2, "VideoCapture", Capture)
    rec = Recorder()
    replay_video(video, tmp_path / "out", rec, HouseRules(), 2, observe_fps=10)
    assert decoded_on == {"replay-decode"}
    assert [f for f, _t, _g in rec.seen] == list(range(0, 90, 3))
    grey = [g for _f, _t, g in rec.seen]  # (MJPG shifts a flat grey a little)
    assert all(abs(g - (f * 8) % 256) <= 3 for g, f in zip(grey, range(0, 90, 3), strict=True))

    class Interrupted(Recorder):
        def __call__(self, image, frame, t_ms):
            if frame == 6:
                raise KeyboardInterrupt  # not a bad frame: the replay itself stops
            return super().__call__(image, frame, t_ms)

    try:
        replay_video(video, tmp_path / "out2", Interrupted(), HouseRules(), 2, observe_fps=10)
    except KeyboardInterrupt:
        pass
    else:
        raise AssertionError("the interrupt was swallowed")
    assert not [t for t in threading.enumerate() if t.name == "replay-decode"]
