"""Build the bundled example round of ``nertz demo`` (``referee/data/demo/``).

A short 2-seat round (simulated, seed 5, with mistakes) rendered as a small overhead video
(384×216, 10 fps, ArUco markers) with the renderer's per-frame labels, trimmed to what the
oracle observer reads and gzipped, and the round's calls; and the same round at 1280×720 in
H.264 for ``nertz demo --path real`` (the card detector needs indices of 8 px or more)::

    python -m scripts.make_demo [--out referee/data/demo]
    python -m scripts.make_demo --size 1280x720 --codec h264 --crf 26 --name round-720p

Needs the card artwork (``scripts/setup_assets.sh``); ``nertz demo`` itself needs only the
files this writes.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

from rules import HouseRules
from rules.log import write_log
from rules.simulator import simulate_round
from vision.render.camera import Camera
from vision.render.video import VideoSettings, render_video

DEMO = Path(__file__).resolve().parents[1] / "referee" / "data" / "demo"
KEEP_CARD = ("code", "card", "owner", "place", "box", "visible", "face_up", "depth", "z",
             "design", "indices")


def trim(line: dict) -> dict:
    """A labels line with only what :func:`vision.observation.observation_from_labels` and
    the review overlay use (boxes rounded to 0.1 px)."""
    if line.get("type") == "header":
        return {k: v for k, v in line.items() if k not in ("lighting",)}
    cards = []
    for c in line.get("cards", []):
        card = {k: c[k] for k in KEEP_CARD if k in c}
        card["box"] = [round(v, 1) for v in c["box"]]
        card["indices"] = [{"visible": round(i.get("visible", 0.0), 3)}
                           for i in c.get("indices", [])]
        cards.append(card)
    hands = [{"box": [round(v, 1) for v in h["box"]]} for h in line.get("hands", [])]
    return {"frame": line["frame"], "t_ms": line["t_ms"], "cards": cards, "hands": hands}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=DEMO)
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--size", default="384x216")
    p.add_argument("--fps", type=float, default=10.0)
    p.add_argument("--name", default="round",
                   help="video and labels file stem (the real-path copy: round-720p)")
    p.add_argument("--codec", choices=("mp4v", "h264"), default="mp4v",
                   help="h264 (PyAV, train extra) is several times smaller")
    p.add_argument("--crf", type=int, default=26, help="h264 quality (lower: larger)")
    args = p.parse_args(argv)
    w, h = (int(v) for v in args.size.split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    rules = HouseRules.preset("nertz")
    events = simulate_round(2, rules, args.seed, 0.1, 1)
    log = args.out / "round.jsonl"
    write_log(events, log)
    calls = [{"seat": e["seat"], "t_ms": e["t_ms"]} for e in events if e["type"] == "call"]
    (args.out / "calls.jsonl").write_text("".join(json.dumps(c) + "\n" for c in calls))
    video = args.out / f"{args.name}.mp4"
    settings = VideoSettings(fps=args.fps, size=(w, h), seed=1, markers=True, shape="rect",
                             decks=("kde-standard", "gnome-simplistic"),
                             camera=Camera(width=w, height=h, tilt_deg=6))
    info = render_video(log, video, settings, codec=args.codec, crf=args.crf)
    raw = video.with_suffix(".labels.jsonl")
    lines = [trim(json.loads(x)) for x in raw.read_text().splitlines() if x.strip()]
    with gzip.open(args.out / f"{args.name}.labels.jsonl.gz", "wt", encoding="utf-8") as fh:
        for line in lines:
            fh.write(json.dumps(line, separators=(",", ":")) + "\n")
    raw.unlink()
    sizes = {f.name: f.stat().st_size for f in sorted(args.out.iterdir())}
    print(json.dumps({"frames": info["frames"], "seconds": info["seconds"], "sizes": sizes}))


if __name__ == "__main__":
    main()
