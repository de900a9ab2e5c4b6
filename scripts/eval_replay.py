"""Referee accuracy on rendered games: simulate → render → replay, compared with the log.

Modes: ``oracle`` (observations from the render labels: the tracker alone), ``table``
(the labels' boxes and codes as detections → the real table model → tracker) and ``full``
(the card detector on every frame → table model → tracker). Calls come from the simulator's
log as call input (a button press), so false calls can be judged; ``--no-calls`` measures
the inferred round end instead.

    python -m scripts.eval_replay --rounds 24 --fps 10 --cache cache/eval720
"""

from __future__ import annotations

import argparse
import json
import pickle
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import cv2

from rules import HouseRules
from rules.log import write_log
from rules.simulator import simulate_round
from vision.observation import Observation
from vision.tracker import Tracker, oracle_observations

PRESETS = ("nertz", "single-draw", "pounce", "racing-demon", "klondike-draw")
CAMERAS = ("tilt_deg=8,yaw_deg=5", "tilt_deg=18,yaw_deg=30,k1=-0.08", "tilt_deg=12,roll_deg=4",
           "tilt_deg=22,yaw_deg=-20,k1=0.05")
TOL_MS = 3000


def _lake(place: str) -> str:
    return "lake" if place.startswith("lake:") else place


def pairs(truth: list[dict[str, Any]], got: list[dict[str, Any]], key: Any
          ) -> list[tuple[int, int]]:
    """Greedy one-to-one matching by key within TOL_MS: (truth index, got index) pairs."""
    used: set[int] = set()
    out = []
    for j, t in enumerate(truth):
        for i, g in enumerate(got):
            if i not in used and key(t) == key(g) and abs(t["t_ms"] - g["t_ms"]) <= TOL_MS:
                used.add(i)
                out.append((j, i))
                break
    return out


def _match(truth: list[dict[str, Any]], got: list[dict[str, Any]], key: Any) -> int:
    """The number :func:`pairs` matches."""
    return len(pairs(truth, got, key))


def flag_key(e: dict[str, Any]) -> tuple[Any, ...]:
    """What makes two flags the same: seat, rule and card."""
    return (e["seat"], e["rule"], e.get("card"))


def feed(tracker: Tracker, observations: Iterable[Any], calls: list[tuple[int, float]]
         ) -> Tracker:
    """Run ``tracker`` over ``observations``, giving each ``(seat, t_ms)`` call when its
    time comes, then finish the round."""
    calls = list(calls)
    for obs in observations:
        while calls and calls[0][1] <= obs.t_ms:
            tracker.call(*calls.pop(0))
        tracker.update(obs)
    for c in calls:
        tracker.call(*c)
    tracker.finish()
    return tracker


def compare(truth: list[dict[str, Any]], log: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts for one round: moves, lake ownership, flags, false calls, scores."""
    tm = [e for e in truth if e["type"] == "move"]
    gm = [e for e in log if e["type"] == "move"]

    def mkey(e: dict[str, Any]) -> tuple[Any, ...]:
        return (e["seat"], e["card"], e["from"], _lake(e["to"]), e.get("n", 1))

    lake_t = [e for e in tm if e["to"].startswith("lake:")]
    lake_g = [e for e in gm if e["to"].startswith("lake:")]
    own_total = _match(lake_t, lake_g, lambda e: e["card"])
    own_right = _match(lake_t, lake_g, lambda e: (e["card"], e["from"]))
    tf = [e for e in truth if e["type"] == "flag"]
    gf = [e for e in log if e["type"] == "flag"]
    fkey = flag_key

    t_end = next(e for e in truth if e["type"] == "round_end")
    g_end = next((e for e in log if e["type"] == "round_end"), None)
    t_false = [e for e in tf if e["rule"] == "false_call"]
    g_false = [e for e in gf if e["rule"] == "false_call"]
    scores = g_end["scores"] if g_end else [0] * len(t_end["scores"])
    return {"moves_true": len(tm), "moves_got": len(gm), "moves_hit": _match(tm, gm, mkey),
            "own_total": own_total, "own_right": own_right,
            "flags_true": len(tf), "flags_got": len(gf), "flags_hit": _match(tf, gf, fkey),
            "false_calls": len(t_false), "false_calls_hit": _match(t_false, g_false, fkey),
            "exact": scores == t_end["scores"],
            "abs_err": sum(abs(a - b) for a, b in zip(scores, t_end["scores"], strict=True))
            / len(scores),
            "truth_scores": t_end["scores"], "scores": scores}


def run_round(i: int, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """Simulate, render and replay one round; its comparison."""
    from vision.render.camera import Camera
    from vision.render.video import VideoSettings, render_video

    rng = random.Random(f"eval-replay:{args.seed}:{i}")
    seats = [2, 3, 4, 5, 6, 8][i % 6] if args.players is None else args.players
    preset = PRESETS[i % len(PRESETS)]
    mistakes = 0.1 if i % 2 else 0.0
    rules = HouseRules.preset(preset)
    events = simulate_round(seats, rules, seed=args.seed * 1000 + i, mistakes=mistakes)
    w, h = _size_for(seats, args.size)
    camera = Camera.parse(CAMERAS[i % len(CAMERAS)], width=w, height=h)
    oracle = args.mode == "oracle"
    tag = f"r{i}-s{args.seed}-{w}x{h}-{args.fps:g}fps{'-labels' if oracle else ''}"
    if args.cache is not None:
        work = args.cache
        work.mkdir(parents=True, exist_ok=True)
    log = work / f"{tag}.jsonl"
    video = work / f"{tag}.mp4"
    labels = video.with_suffix(".labels.jsonl")
    settings = VideoSettings(fps=args.fps, size=(w, h), seed=rng.randrange(10**6),
                             camera=camera, split="test", markers=not oracle)
    t0 = time.perf_counter()
    cached = (args.cache is not None and labels.exists() and log.exists()
              and (oracle or video.exists()))
    if not cached:
        write_log(events, log)
        if oracle:
            render_labels(log, labels, settings)
        else:
            render_video(log, video, settings)
    render_s = time.perf_counter() - t0
    lines = [json.loads(x) for x in labels.read_text().splitlines()]
    tracker = Tracker(rules, seats, min_frames=args.min_frames)
    calls = [] if args.no_calls else [(e["seat"], e["t_ms"]) for e in events
                                       if e["type"] == "call"]
    t0 = time.perf_counter()
    incremental = args.mode == "full" and getattr(args, "incremental", False)
    stride = max(1, getattr(args, "stride", 1))
    gate = _gate_options(getattr(args, "gate", None))
    models = getattr(args, "models", None)
    observations: Iterable[Observation] = _observations(args.mode, lines, video, seats, rules,
                                                        incremental, stride, gate, models)
    if args.mode == "full" and args.cache is not None:  # the detector is the slow part
        name = observations_name(tag, incremental, stride, gate, models)
        observations = _cached(work / name, observations)
    feed(tracker, observations, calls)
    replay_s = time.perf_counter() - t0
    out = compare(events, tracker.log())
    out.update(round=i, seats=seats, preset=preset, mistakes=mistakes,
               frames=len(lines) - 1, video_s=(len(lines) - 1) / args.fps,
               render_s=render_s, replay_s=replay_s, end_inferred=tracker.end_inferred)
    return out


#: what names the models folder in a kept observations file made with ``--models``
MODELS_TAG = ".models-"


def observations_name(tag: str, incremental: bool, stride: int, gate: dict[str, float],
                      models: Path | None = None) -> str:
    """The file a round's full-mode observations are kept in: the round's tag, then how
    they were made (gated, the stride, the gate's options, and the models folder when it
    is not ``models/``: :data:`MODELS_TAG` and the folder's name)."""
    kind = (".incremental" if incremental else "") + (f".stride{stride}" if stride > 1
                                                      else "")
    kind += "".join(f".{k}{v:g}" for k, v in sorted(gate.items()))
    if models is not None:
        kind += f"{MODELS_TAG}{Path(models).name}"
    return f"{tag}{kind}.observations.pkl"


def _cached(path: Path, observations: Iterable[Observation]) -> list[Observation]:
    """The observations kept in ``path`` (this project's own pickle, written here), or
    made now and kept there, so the tracker can be tried again without the detector."""
    if path.exists():
        with open(path, "rb") as fh:
            return pickle.load(fh)  # noqa: S301 - a file this script wrote itself
    out = list(observations)
    tmp = path.with_suffix(".part")
    with open(tmp, "wb") as fh:
        pickle.dump(out, fh)
    tmp.replace(path)
    return out


def _size_for(seats: int, size: str) -> tuple[int, int]:
    """The frame size for a table: ``size`` up to 4 seats, 1.5× for 5–6 and 2× for 7–8 (so
    a card's corner index keeps about the same number of pixels)."""
    w, h = (int(v) for v in size.split("x"))
    scale = 1.0 if seats <= 4 else 1.5 if seats <= 6 else 2.0
    return int(w * scale) // 2 * 2, int(h * scale) // 2 * 2


def render_labels(log: Path, out: Path, settings: Any) -> int:
    """Only the labels of a rendered round (no camera side, no encoding: what oracle mode
    reads), written like ``render_video``'s ``*.labels.jsonl``; the frame count."""
    from vision.render.video import RoundRenderer

    renderer = RoundRenderer(log, settings)
    n = 0
    tmp = out.with_suffix(".part")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"type": "header", "width": settings.size[0],
                             "height": settings.size[1], "fps": settings.fps,
                             "seed": settings.seed, "log": str(log), "labels_only": True})
                 + "\n")
        for frame, t, _image, lab in renderer.frames(camera_side=False):
            if lab is not None:
                fh.write(json.dumps({"frame": frame, "t_ms": round(t, 1), **lab},
                                    separators=(",", ":")) + "\n")
                n += 1
    tmp.replace(out)
    return n


def _gate_options(text: str | None) -> dict[str, float]:
    """``settle_ms=150,full_every_ms=5000`` → the change gate's keyword options."""
    out: dict[str, float] = {}
    for part in (text or "").split(","):
        if part.strip():
            key, _, value = part.partition("=")
            out[key.strip()] = float(value)
    return out


def _observations(mode: str, lines: list[dict[str, Any]], video: Path, seats: int,
                  rules: HouseRules, incremental: bool = False, stride: int = 1,
                  gate: dict[str, float] | None = None, models: Path | None = None) -> Any:
    if mode == "oracle":
        yield from oracle_observations(lines)
        return
    from scripts.eval_places import label_detections
    from vision.profile import TableProfile
    from vision.table_model import TableModel

    geo = lines[0]["table"]
    profile = TableProfile.propose(seats, geo["shape"], geo["width_mm"], geo["depth_mm"],
                                   markers=True)
    profile.preset = rules.preset_name
    model = TableModel(profile)
    detector = None
    if mode == "full":
        from vision.detector import CardDetector
        detector = CardDetector.load(models)
        detector.turned_pass = 0.0  # a table camera's frames: one look
        detector.photos = False
        model.back_check = detector.back_check
    observer = None
    if incremental and detector is not None:  # the replay's default: only where it changed
        from referee.replay import model_observer
        observer = model_observer(model, detector, **(gate or {}))
    cap = cv2.VideoCapture(str(video))
    for n, lab in enumerate(lines[1:]):
        if n % stride:  # not observed (as nertz replay --observe-fps): only grabbed
            if not cap.grab():
                break
            continue
        ok, image = cap.read()
        if not ok:
            break
        if observer is not None:
            yield observer(image, lab["frame"], lab["t_ms"])
            continue
        dets = detector(image) if detector is not None else label_detections(lab["cards"])[0]
        obs: Observation = model.observe(image, dets, lab["frame"], lab["t_ms"])
        yield obs


def speed(work: Path, seconds: float = 4.0) -> dict[str, float]:
    """Replay throughput (oracle observations + tracker) and the detector on every frame,
    1280×720 at 30 fps, as multiples of real time."""
    from vision.render.video import VideoSettings, render_video

    events = simulate_round(4, HouseRules(), seed=5)
    log = work / "speed.jsonl"
    write_log(events, log)
    video = work / "speed.mp4"
    render_video(log, video, VideoSettings(fps=30, size=(1280, 720), seed=5,
                                           max_seconds=seconds))
    lines = [json.loads(x) for x in video.with_suffix(".labels.jsonl").read_text().splitlines()]
    cap = cv2.VideoCapture(str(video))
    t0 = time.perf_counter()
    tracker = Tracker(HouseRules(), 4)
    for obs in oracle_observations(lines):
        ok, _img = cap.read()  # decoding is part of the replay
        tracker.update(obs)
    replay = time.perf_counter() - t0
    result = {"video_s": seconds, "replay_x_realtime": seconds / replay}
    try:
        from vision.detector import CardDetector
        detector = CardDetector.load()
        detector.turned_pass = 0.0  # (as the pipeline: one look at a camera's frame)
        detector.photos = False
        cap = cv2.VideoCapture(str(video))
        n, t0 = 0, time.perf_counter()
        while n < 10:
            ok, img = cap.read()
            if not ok:
                break
            detector(img)
            n += 1
        per = (time.perf_counter() - t0) / max(1, n)
        result["detector_every_frame_x_realtime"] = 1 / (per * 30)
    except Exception as exc:  # noqa: BLE001 - the detector is optional here
        result["detector_error"] = f"{type(exc).__name__}: {exc}"
    return result


def _group(rows: list[dict[str, Any]]) -> str:
    """One line of the headline figures for a group of rounds."""
    def ratio(a: str, b: str) -> float:
        den = sum(r[b] for r in rows)
        return sum(r[a] for r in rows) / den if den else float("nan")

    return (f"{len(rows)} rounds: moves P/R {ratio('moves_hit', 'moves_got'):.3f}/"
            f"{ratio('moves_hit', 'moves_true'):.3f}, ownership "
            f"{ratio('own_right', 'own_total'):.3f}, flags P/R "
            f"{ratio('flags_hit', 'flags_got'):.2f}/{ratio('flags_hit', 'flags_true'):.2f}, "
            f"exact {sum(r['exact'] for r in rows)}/{len(rows)}, MAE "
            f"{statistics.mean(r['abs_err'] for r in rows):.2f}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--size", default="1280x720",
                   help="frame size up to 4 seats (1.5x for 5-6, 2x for 7-8); at 480x270 and less "
                        "an index is a few pixels and the labels' visibility test is noise")
    p.add_argument("--fps", type=float, default=10.0)
    p.add_argument("--mode", choices=("oracle", "table", "full"), default="oracle")
    p.add_argument("--oracle", action="store_const", const="oracle", dest="mode")
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-calls", action="store_true", help="no call input: inferred ends")
    p.add_argument("--speed", action="store_true", help="also measure replay speed")
    p.add_argument("--incremental", action="store_true",
                   help="full mode: the change-gated detector (vision.incremental) instead of "
                        "the detector on every frame")
    p.add_argument("--gate", default=None,
                   help="with --incremental: the change gate's options, e.g. "
                        "settle_ms=150,full_every_ms=5000 (vision.incremental)")
    p.add_argument("--stride", type=int, default=1,
                   help="full and table modes: observe every k-th frame only (the others "
                        "grabbed, not decoded)")
    p.add_argument("--json", type=Path, default=None, help="write per-round results here")
    p.add_argument("--cache", type=Path, default=None,
                   help="keep logs and renders here and reuse them (oracle mode renders "
                        "labels only)")
    p.add_argument("--only", type=str, default=None, help="comma-separated round numbers")
    p.add_argument("--models", type=Path, default=None,
                   help="full mode: the detector's models folder (default models/), e.g. a "
                        "copy with another localiser; its observations are kept apart, named "
                        "by the folder (scripts.sum_replay --models NAME)")
    p.add_argument("--min-frames", type=int, default=2,
                   help="the tracker's frames of agreement before a place's state counts")
    args = p.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        which = range(args.rounds) if args.only is None else \
            [int(x) for x in args.only.split(",")]
        for i in which:
            r = run_round(i, args, work)
            rows.append(r)
            print(f"round {i:2d} seats {r['seats']} {r['preset']:<13} mistakes {r['mistakes']}"
                  f" moves {r['moves_hit']}/{r['moves_true']} (got {r['moves_got']}) flags "
                  f"{r['flags_hit']}/{r['flags_true']} (got {r['flags_got']}) scores "
                  f"{r['scores']} vs {r['truth_scores']}", flush=True)
        sp = speed(work) if args.speed else None

    def ratio(a: str, b: str) -> float:
        den = sum(r[b] for r in rows)
        return sum(r[a] for r in rows) / den if den else float("nan")

    summary = {
        "mode": args.mode, "rounds": len(rows), "size": args.size, "fps": args.fps,
        "calls_input": not args.no_calls,
        "move_precision": ratio("moves_hit", "moves_got"),
        "move_recall": ratio("moves_hit", "moves_true"),
        "lake_ownership": ratio("own_right", "own_total"),
        "flag_precision": ratio("flags_hit", "flags_got"),
        "flag_recall": ratio("flags_hit", "flags_true"),
        "false_calls_caught": f"{sum(r['false_calls_hit'] for r in rows)}/"
                              f"{sum(r['false_calls'] for r in rows)}",
        "rounds_exact": sum(r["exact"] for r in rows) / len(rows),
        "mean_abs_score_error": statistics.mean(r["abs_err"] for r in rows),
        "video_s": sum(r["video_s"] for r in rows),
        "replay_s": sum(r["replay_s"] for r in rows),
    }
    groups = {"no mistakes": [r for r in rows if not r["mistakes"]],
              "mistakes": [r for r in rows if r["mistakes"]],
              "2-4 seats": [r for r in rows if r["seats"] <= 4],
              "5-8 seats": [r for r in rows if r["seats"] > 4]}
    summary["by_group"] = {name: _group(rs) for name, rs in groups.items() if rs}
    if sp:
        summary["speed_1280x720_30fps"] = sp
    print(json.dumps(summary, indent=1))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "rounds": rows}, indent=1))


if __name__ == "__main__":
    sys.exit(main())
