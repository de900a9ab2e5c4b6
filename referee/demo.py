"""``nertz demo``: replay the bundled example round and write its report.

The example (``referee/data/demo/``, built by ``python -m scripts.make_demo``) is a 61 s
2-seat round with mistakes, simulated and rendered as a 384×216, 10 fps overhead video with
ArUco markers; beside it the simulator's log (the truth), the calls, and the renderer's
per-frame labels (gzipped); and the same round at 1280×720 (H.264, ``round-720p.*``) for
the real path.

Two paths: ``oracle`` (the default) reads the observations a perfect card detector and
table model would make from the labels, so the tracker, rules and report run on the real
video; ``real`` runs the card detector and table model on the frames (a table profile is
calibrated from the markers of the first frame). The report says which path it used.
"""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2

from rules import HouseRules

from .replay import ReplayError, oracle_observer, pipeline_observer, read_calls, replay_video

DEMO = Path(__file__).with_name("data") / "demo"

__all__ = ["DEMO", "DemoError", "demo_files", "demo_profile_toml", "real_path_files",
           "run_demo", "table_corners"]


class DemoError(ValueError):
    """The bundled example is missing or cannot be replayed; one line says why."""


def real_path_files(folder: Path = DEMO) -> dict[str, Path] | None:
    """The example at 1280×720 (H.264) with its labels, for the real path; None when the
    copy is not there (then the real path runs on the small video, where it reads nothing)."""
    files = {"video": folder / "round-720p.mp4", "labels": folder / "round-720p.labels.jsonl.gz"}
    return files if all(p.is_file() for p in files.values()) else None


def demo_files(folder: Path = DEMO) -> dict[str, Path]:
    """The example's files: video, labels (gzipped), log (the truth), calls."""
    files = {"video": folder / "round.mp4", "labels": folder / "round.labels.jsonl.gz",
             "log": folder / "round.jsonl", "calls": folder / "calls.jsonl"}
    missing = [p.name for p in files.values() if not p.is_file()]
    if missing:
        raise DemoError(f"the bundled example is incomplete ({', '.join(missing)} missing in "
                        f"{folder}); rebuild it with python -m scripts.make_demo")
    return files


def table_corners(header: dict[str, Any]) -> str:
    """The table's four corners in the video's pixels (``x,y;x,y;x,y;x,y``, as
    ``nertz calibrate --corners`` takes them) from a render's labels header."""
    import numpy as np

    table = header["table"]
    w, d = table["width_mm"], table["depth_mm"]
    mm = np.array([[-w / 2, -d / 2], [w / 2, -d / 2], [w / 2, d / 2], [-w / 2, d / 2]])
    px = cv2.perspectiveTransform(mm.reshape(-1, 1, 2), np.array(header["homography"]))
    return ";".join(f"{x:.1f},{y:.1f}" for x, y in px.reshape(-1, 2))


def demo_profile_toml(labels_gz: Path) -> str:
    """A table profile (TOML) of the example's table, calibrated from its four corners."""
    import tempfile

    from vision.profile import make_profile

    with gzip.open(labels_gz, "rt", encoding="utf-8") as fh:
        header = json.loads(fh.readline())
    table = header["table"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "table.toml"
        make_profile(path, len(table["seats"]), table["shape"],
                     f"{table['width_mm']:g}x{table['depth_mm']:g}", table_corners(header))
        return path.read_text()


def _real_observer(out: Path, labels: Path, video: Path) -> Any:
    """The detector + table-model observer, with a profile calibrated from the four table
    corners the labels give."""
    from vision.profile import make_profile

    header = json.loads(labels.read_text().splitlines()[0])
    table = header["table"]
    w, d = table["width_mm"], table["depth_mm"]
    corners = table_corners(header)
    cap = cv2.VideoCapture(str(video))
    ok, first = cap.read()
    cap.release()
    if not ok:
        raise DemoError(f"cannot read {video}")
    still = out / "first-frame.png"
    cv2.imwrite(str(still), first)
    profile = out / "table.toml"
    try:
        make_profile(profile, len(table["seats"]), table["shape"], f"{w:g}x{d:g}", corners,
                     still, "nertz")
    except ValueError as exc:
        raise DemoError(f"real path: cannot calibrate the demo table: {exc}") from None
    try:
        return pipeline_observer(profile)
    except ReplayError as exc:
        raise DemoError(f"real path: {exc}") from None


def run_demo(out_dir: str | Path, path: str = "real",
             progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Replay the example into ``out_dir`` (events.jsonl, report.json, report.html, the
    video copied beside them); returns the report with ``path`` and ``truth_scores``."""
    if path not in ("oracle", "real"):
        raise DemoError(f"path must be oracle or real, not {path!r}")
    files = demo_files()
    if path == "real":
        files.update(real_path_files() or {})
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    video = out / files["video"].name
    if not video.is_file() or video.stat().st_size != files["video"].stat().st_size:
        shutil.copyfile(files["video"], video)
    labels = out / files["labels"].name.removesuffix(".gz")
    with gzip.open(files["labels"], "rt", encoding="utf-8") as fh:
        labels.write_text(fh.read(), encoding="utf-8")
    shutil.copyfile(files["log"], out / "truth.jsonl")
    truth = [json.loads(x) for x in files["log"].read_text().splitlines() if x.strip()]
    seats = truth[0]["seats"]
    rules = HouseRules.from_dict(truth[0]["rules"])
    if path == "oracle":
        observer = oracle_observer(labels)
        how = ("oracle path: the observations come from the renderer's labels shipped with "
               "the video (a perfect card detector and table model); the tracker, rules and "
               "report are the real ones")
    else:
        observer = _real_observer(out, labels, video)
        h, w = (cv2.VideoCapture(str(video)).get(p) for p in (cv2.CAP_PROP_FRAME_HEIGHT,
                                                            cv2.CAP_PROP_FRAME_WIDTH))
        how = (f"real path: the card detector (where the picture changed) and the table "
               f"model on the {w:.0f}×{h:.0f} video; the renderer's labels give only the "
               f"truth to compare with")
    try:
        report = replay_video(video, out, observer, rules, seats, read_calls(files["calls"]),
                              progress=progress)
    except ReplayError as exc:
        raise DemoError(str(exc)) from None
    truth_scores = truth[-1].get("scores")
    truth_flags = sum(e["type"] == "flag" for e in truth)
    report.update(path=path, path_note=how, truth_scores=truth_scores, truth_flags=truth_flags)
    (out / "report.json").write_text(json.dumps(report, indent=1, default=str))
    page = out / "report.html"
    banner = (f"<p><b>nertz demo</b> — {how}. The simulator's truth for this round: scores "
              f"{truth_scores}, {truth_flags} flag(s); the referee: scores "
              f"{(report.get('score') or {}).get('scores')}, {len(report.get('flags', []))} "
              "flag(s).</p>")
    page.write_text(page.read_text().replace("</h1>", "</h1>" + banner, 1))
    return report
