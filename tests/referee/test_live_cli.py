"""``nertz live``: a video played as if live into the SQLite store, a camera that cannot be
opened (one line), and a camera that disconnects mid-round (everything recorded is kept)."""

from __future__ import annotations

import gzip
import json
import queue
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.demo import demo_files
from referee.store import Store
from referee.terminal import LiveError, LiveSession, run
from rules import HouseRules

NERTZ = shutil.which("nertz")
FRAMES = 160


def nertz(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [NERTZ, *args] if NERTZ else [sys.executable, "-m", "referee.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The demo round's first 16 s as a small MJPEG video, with its render labels."""
    files = demo_files()
    work = tmp_path_factory.mktemp("liveclip")
    cap = cv2.VideoCapture(str(files["video"]))
    video = work / "clip.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"),
                             cap.get(cv2.CAP_PROP_FPS), (384, 216))
    for _ in range(FRAMES):
        ok, image = cap.read()
        assert ok
        writer.write(image)
    writer.release()
    cap.release()
    labels = work / "clip.labels.jsonl"
    with gzip.open(files["labels"], "rt") as fh:
        labels.write_text("".join(x for x in fh if '"header"' in x[:20]
                                  or json.loads(x)["frame"] < FRAMES))
    return video, labels


def test_video_played_live_is_recorded_in_the_store(clip: tuple[Path, Path],
                                                     tmp_path: Path) -> None:
    video, labels = clip
    db = tmp_path / "live.db"
    r = nertz("live", "--video", str(video), "--oracle", str(labels), "--db", str(db),
              "--speed", "0")
    assert r.returncode == 0, r.stderr
    assert "the video ended" in r.stderr and "round 1" in r.stderr
    store = Store(db)
    rnd = store.round(1)
    assert rnd["status"] == "ended" and rnd["score"] is not None
    events = [e["event"] for e in store.events(1)]
    assert events[0]["type"] == "round_start" and events[-1]["type"] == "round_end"
    moves = [e for e in events if e["type"] == "move"]
    truth = [json.loads(x) for x in demo_files()["log"].read_text().splitlines()]
    want = {(e["seat"], e["card"]) for e in truth if e["type"] == "move"
            and e["t_ms"] < FRAMES * 100 - 1500}
    assert len(want & {(e["seat"], e["card"]) for e in moves}) >= 0.7 * len(want)


def test_camera_that_cannot_be_opened_says_so_in_one_line(clip: tuple[Path, Path],
                                                          tmp_path: Path) -> None:
    _video, labels = clip
    from vision.profile import make_profile

    profile = tmp_path / "table.toml"
    make_profile(profile, 2, "rect", "900x1400", "10,10;370,10;370,200;10,200")
    db = tmp_path / "cam.db"
    r = nertz("live", "--camera", "9", "--profile", str(profile), "--db", str(db))
    assert r.returncode == 1
    assert "cannot open camera 9" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not db.exists() or Store(db).rounds() == []  # nothing half-created
    r = nertz("live", "--video", str(tmp_path / "none.mp4"), "--oracle", str(labels))
    assert r.returncode == 1 and "no such file" in r.stderr
    r = nertz("live", "--oracle", str(labels))
    assert r.returncode == 2 and "--camera" in r.stderr


class FlakyCamera:
    """A camera that sends the clip's first ``n`` frames and then none (unplugged); at
    frame ``key_at`` someone presses a key."""

    def __init__(self, video: Path, n: int, keys: queue.Queue[str], key_at: int) -> None:
        self.cap = cv2.VideoCapture(str(video))
        self.n, self.i, self.keys, self.key_at = n, 0, keys, key_at

    def isOpened(self) -> bool:  # noqa: N802
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.i >= self.n:
            return False, None
        if self.i == self.key_at:
            self.keys.put("1")  # seat 0 calls: it still holds its nertz pile, a false call
        self.i += 1
        return self.cap.read()

    def get(self, prop: int) -> float:
        return 10.0

    def release(self) -> None:
        self.cap.release()


def test_camera_that_disconnects_keeps_what_was_recorded(clip: tuple[Path, Path],
                                                         tmp_path: Path) -> None:
    video, labels = clip
    db = tmp_path / "flaky.db"
    keys: queue.Queue[str] = queue.Queue()
    session = LiveSession(db, 2, HouseRules.preset("nertz"), {"kind": "camera", "index": 0},
                          labels=labels, keep_frames=True)
    with pytest.raises(LiveError, match="stopped sending frames after 120 frame"):
        run(session, FlakyCamera(video, 120, keys, 100), live=True, key_queue=keys)
    recorded = session.recorded
    store = Store(db)  # as another process would open it
    rnd = store.round(session.round_id)
    assert rnd["status"] == "stopped"
    events = [e["event"] for e in store.events(session.round_id)]
    assert len(events) == recorded  # every committed event is in the file
    assert [e["type"] for e in events[:3]] == ["round_start", "deal", "deal"]
    calls = [e for e in events if e["type"] == "call"]
    assert calls and calls[0]["seat"] == 0 and calls[0]["valid"] is False
    kept = sorted((Path(f"{db}.files") / "frames" / str(session.round_id)).glob("*.jpg"))
    assert len(kept) == 120 and cv2.imread(str(kept[-1])) is not None
