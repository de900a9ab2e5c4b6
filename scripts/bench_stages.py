"""Two stages of ``nertz replay`` timed apart, offline, on the frames of
``scripts.bench_replay``'s video (round 0, 1280×720, 30 fps):

- ``regions``: every detector call of the change gate's region reads in one replay
  (recorded once: frame, regions, focus boxes, scale), run again on the same frames;
  the cards read are scored against the render's labels (a read right or wrong: matched to a
  labelled face-up card by its visible box or an index at least 60 % visible; ``extra``:
  matched to none; ``focus_found``: labelled cards that belong to a focus box, found);
- ``table_model``: every observed frame's detections (recorded in the same replay) placed
  again by a fresh :class:`vision.table_model.TableModel`;
- ``tracker``: every observation the tracker got in that replay, given to a fresh
  :class:`vision.tracker.Tracker` (its events compared with ``--compare``).

Each runs alone in one process, so its time is not shared with decoding or the other
stages (``scripts.bench_replay`` times the whole replay). Changes that must not change what
is read or placed are checked with ``--save`` in one tree and ``--compare`` in the other.

    python -m scripts.bench_stages                     # record once (cached), then time both
    python -m scripts.bench_stages --up 1.5            # frames enlarged 1.5×: a 1080p camera
    python -m scripts.bench_stages --only regions --profile 30
    python -m scripts.bench_stages --save a.pkl        # then, in another tree:
    python -m scripts.bench_stages --compare a.pkl     # the same reads and observations?

``--up F`` enlarges each frame by F (bicubic) and the recorded regions, boxes and scale
with it: the detector then looks at each region shrunk back by 1/F, as it does for a
camera whose cards are F times the size the localiser knows.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pickle
import pstats
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scripts.bench_replay import render

FPS = 30.0


def record(video: Path, profile: Path, rules: Any, seats: int, out: Path) -> dict[str, Any]:
    """One replay of ``video`` with the default real path, keeping each region read's
    arguments and each observed frame's detections."""
    from referee.replay import pipeline_observer, replay_video

    obs = pipeline_observer(profile, observe_fps=10.0)
    gate, model = obs.gate, obs.model
    calls: list[dict[str, Any]] = []
    frames: list[tuple[int, float, Any]] = []
    now = {"t": 0.0}
    read, observe = gate._read, model.observe

    def gate_read(image: np.ndarray, looks: list[Any], boxes: Any = None) -> Any:
        calls.append({"frame": round(now["t"] * FPS / 1000.0), "looks": [list(map(int, r))
                      for r in looks], "boxes": boxes, "scale": gate._scale,
                      "slack": gate.SLACK * gate._card_px if gate.focus and boxes else None})
        return read(image, looks, boxes)

    def model_observe(image: np.ndarray, dets: Any, frame: int, t_ms: float,
                      grey: np.ndarray | None = None) -> Any:
        frames.append((frame, t_ms, dets))
        return observe(image, dets, frame, t_ms, grey=grey)

    gate._read, model.observe = gate_read, model_observe

    seen: list[bytes] = []

    def observer(image: np.ndarray, frame: int, t_ms: float) -> Any:
        now["t"] = t_ms  # (the frame whose regions the gate reads)
        out = obs(image, frame, t_ms)
        seen.append(pickle.dumps(out))  # (as the tracker got it)
        return out

    for name in ("model", "gate", "timing", "observe_fps"):
        setattr(observer, name, getattr(obs, name))
    replay_video(video, out.parent / "stages-replay", observer, rules, seats)
    data = {"video": str(video), "profile": str(profile), "calls": calls, "frames": frames,
            "observations": seen, "rules": rules, "seats": seats}
    out.write_bytes(pickle.dumps(data))
    return data


def load_frames(video: Path, wanted: set[int], up: float) -> dict[int, np.ndarray]:
    cap = cv2.VideoCapture(str(video))
    images: dict[int, np.ndarray] = {}
    last = max(wanted, default=-1)
    i = 0
    while i <= last:
        if i in wanted:
            ok, image = cap.read()
            if not ok:
                break
            if up != 1.0:
                image = cv2.resize(image, (round(image.shape[1] * up),
                                           round(image.shape[0] * up)),
                                   interpolation=cv2.INTER_CUBIC)
            images[i] = image
        elif not cap.grab():
            break
        i += 1
    cap.release()
    return images


def run_regions(data: dict[str, Any], images: dict[int, np.ndarray], up: float,
                models: str | None, prof: cProfile.Profile | None
                ) -> tuple[dict[str, Any], list[Any]]:
    from vision.detector import CardDetector

    detector = CardDetector.load(models)
    detector.turned_pass, detector.close_ups, detector.photos = 0.0, False, False
    found = []
    t0 = time.perf_counter()
    if prof is not None:
        prof.enable()
    for c in data["calls"]:
        kwargs: dict[str, Any] = {"regions": [tuple(round(v * up) for v in r)
                                              for r in c["looks"]]}
        kwargs["scale"] = (c["scale"] or 1.0) / up
        if c["slack"] is not None:
            kwargs["focus"] = [[v * up for v in b] for b in c["boxes"]]
            kwargs["focus_slack"] = c["slack"] * up
        dets = detector(images[c["frame"]], **kwargs)
        found.append((dets.xyxy / up, [str(x) for x in dets.code]))
    if prof is not None:
        prof.disable()
    seconds = time.perf_counter() - t0
    row = {"calls": len(data["calls"]), "seconds": round(seconds, 2),
           "ms_per_call": round(1000 * seconds / max(1, len(data["calls"])), 1)}
    row.update(score(data, found))
    return row, found


def score(data: dict[str, Any], found: list[Any]) -> dict[str, int]:
    """The region reads against the render's labels (see the module doc)."""
    from vision.detections import box_iou, in_boxes

    labels = {}
    wanted = {c["frame"] for c in data["calls"]}
    with open(Path(data["video"]).with_suffix(".labels.jsonl")) as fh:
        for line in fh:
            rec = json.loads(line)
            if rec.get("frame") in wanted:
                labels[rec["frame"]] = rec
    right = wrong = extra = expected = hit_focus = 0
    for c, (xyxy, codes) in zip(data["calls"], found, strict=True):
        cards = [x for x in labels[c["frame"]]["cards"] if x["face_up"] and x["visible"] > 0.05]
        shapes = [[x["visible_box"]] + [i["box"] for i in x["indices"] if i["visible"] >= 0.6]
                  for x in cards]
        hit = set()
        for box, code in zip(xyxy, codes, strict=True):
            if code in ("back", "None"):
                continue
            fits = [float(box_iou(np.asarray([box], np.float64),
                                  np.asarray(s, np.float64)).max()) for s in shapes]
            j = int(np.argmax(fits)) if fits else -1
            if j < 0 or fits[j] < 0.3:
                extra += 1
                continue
            hit.add(j)
            right += cards[j]["card"] == code
            wrong += cards[j]["card"] != code
        if c["slack"] is not None and cards:
            vis = np.asarray([x["visible_box"] for x in cards], np.float64)
            belong = np.nonzero(in_boxes(vis, c["boxes"], c["slack"]))[0]
            want = [j for j in belong if cards[j]["visible"] >= 0.5
                    or any(i["visible"] >= 0.6 for i in cards[j]["indices"])]
            expected += len(want)
            hit_focus += sum(j in hit for j in want)
    return {"reads_right": right, "reads_wrong": wrong, "extra": extra,
            "focus_found": hit_focus, "focus_expected": expected}


def run_table_model(data: dict[str, Any], images: dict[int, np.ndarray],
                    models: str | None, prof: cProfile.Profile | None
                    ) -> tuple[dict[str, Any], list[str]]:
    from vision.detector import CardDetector
    from vision.table_model import TableModel

    model = TableModel.load(data["profile"])
    model.back_check = CardDetector.load(models).back_check
    out = []
    t0 = time.perf_counter()
    if prof is not None:
        prof.enable()
    for frame, t_ms, dets in data["frames"]:
        out.append(repr(model.observe(images[frame], dets, frame, t_ms)))
    if prof is not None:
        prof.disable()
    seconds = time.perf_counter() - t0
    return {"frames": len(out), "seconds": round(seconds, 2),
            "ms_per_frame": round(1000 * seconds / max(1, len(out)), 2)}, out


def run_tracker(data: dict[str, Any], prof: cProfile.Profile | None
                ) -> tuple[dict[str, Any], list[str]]:
    from vision.tracker import Tracker

    observations = [pickle.loads(b) for b in data["observations"]]
    tracker = Tracker(data["rules"], data["seats"])
    t0 = time.perf_counter()
    if prof is not None:
        prof.enable()
    for obs in observations:
        tracker.update(obs)
    tracker.finish()
    if prof is not None:
        prof.disable()
    seconds = time.perf_counter() - t0
    events = [json.dumps(e, sort_keys=True, default=str) for e in tracker.log()]
    return {"frames": len(observations), "seconds": round(seconds, 2),
            "ms_per_frame": round(1000 * seconds / max(1, len(observations)), 2),
            "events": len(events)}, events


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=60.0, help="video length (as bench_replay)")
    p.add_argument("--cache", type=Path, default=Path("cache/bench_replay"))
    p.add_argument("--record", action="store_true", help="record the replay again")
    p.add_argument("--only", choices=("regions", "table_model", "tracker"))
    p.add_argument("--up", type=float, default=1.0, help="enlarge frames (regions only)")
    p.add_argument("--models", default=None, help="models folder (default: models/)")
    p.add_argument("--profile", type=int, default=0, metavar="N",
                   help="cProfile each stage; print its N costliest functions")
    p.add_argument("--sort", default="tottime", choices=("tottime", "cumulative"),
                   help="with --profile: by their own time or with what they call")
    p.add_argument("--save", type=Path, help="keep the reads and observations in a pickle")
    p.add_argument("--compare", type=Path, help="a --save of another tree: count the same")
    args = p.parse_args(argv)

    video, profile, rules, seats = render(args.cache, args.seconds)
    path = args.cache / f"{video.stem}.stages.pkl"
    if args.record or not path.is_file():
        print(f"recording one replay of {video} ...", flush=True)
        data = record(video, profile, rules, seats, path)
    else:
        data = pickle.loads(path.read_bytes())
    rows: dict[str, Any] = {}
    kept: dict[str, Any] = {}
    if args.only in (None, "regions"):
        images = load_frames(video, {c["frame"] for c in data["calls"]}, args.up)
        prof = cProfile.Profile() if args.profile else None
        rows["regions"], kept["regions"] = run_regions(data, images, args.up, args.models,
                                                       prof)
        if prof is not None:
            pstats.Stats(prof).sort_stats(args.sort).print_stats(args.profile)
        del images
    if args.only in (None, "table_model"):
        images = load_frames(video, {f for f, _t, _d in data["frames"]}, 1.0)
        prof = cProfile.Profile() if args.profile else None
        rows["table_model"], kept["table_model"] = run_table_model(data, images,
                                                                   args.models, prof)
        if prof is not None:
            pstats.Stats(prof).sort_stats(args.sort).print_stats(args.profile)
    if args.only in (None, "tracker"):
        prof = cProfile.Profile() if args.profile else None
        rows["tracker"], kept["tracker"] = run_tracker(data, prof)
        if prof is not None:
            pstats.Stats(prof).sort_stats(args.sort).print_stats(args.profile)
    if args.save:
        args.save.write_bytes(pickle.dumps(kept))
    if args.compare:
        other = pickle.loads(args.compare.read_bytes())
        if "regions" in kept and "regions" in other:
            same = sum(len(a[0]) == len(b[0]) and np.allclose(a[0], b[0], atol=0.5)
                       and a[1] == b[1] for a, b in zip(kept["regions"], other["regions"],
                                                        strict=False))
            rows["regions"]["same_as_compared"] = f"{same} of {len(other['regions'])}"
        if "table_model" in kept and "table_model" in other:
            same = sum(a == b for a, b in zip(kept["table_model"], other["table_model"],
                                              strict=False))
            rows["table_model"]["same_as_compared"] = f"{same} of {len(other['table_model'])}"
        if "tracker" in kept and "tracker" in other:
            rows["tracker"]["same_as_compared"] = kept["tracker"] == other["tracker"]
    summary = {"video": str(video), "up": args.up, "rows": rows}
    print(json.dumps(summary, indent=1))
    return summary


if __name__ == "__main__":
    sys.exit(main() and 0)
