"""How long the tracker's river columns are out of step with the table, from kept real-path
observations: per observed frame, each column whose settled, uncovered view the tracker has
is classed against the engine and against the render's labels of that frame (the truth):
in step (the camera's top is the engine's), ``cam empty`` (the camera shows it empty, rightly,
while the engine has cards), ``left unseen`` (the camera's top lies lower in the engine's
column), ``arrived unseen`` (the camera's top, right, is not in the engine's column) and
``cam misread`` (the camera's top is not the truth's). Shares of column time per round;
``--episodes`` lists spells of 5 s or more.

    python -m scripts.diag_columns cache/real26/r1 cache/real26/r18 --episodes
"""

from __future__ import annotations

import argparse
import json
import pickle
from collections import defaultdict
from pathlib import Path
from typing import Any

from rules import HouseRules
from scripts.sum_replay import kept_files
from vision.observation import observation_from_labels
from vision.tracker import Tracker

LONG_MS = 5000.0


def classify(cam: tuple[str, ...], eng: tuple[str, ...], truth: tuple[str, ...] | None
             ) -> str | None:
    """The class of one column view (None: in step)."""
    top, engine_top = (cam[-1] if cam else None), (eng[-1] if eng else None)
    if top == engine_top:
        return None
    if truth is not None and (truth[-1] if truth else None) != top:
        return "cam misread"
    if top is None:
        return "cam empty"
    return "left unseen" if top in eng else "arrived unseen"


def measure(d: Path) -> tuple[float, dict[str, float], list[tuple[Any, ...]]]:
    """Column time (ms), time per class, and the spells (place, class, start, end, views)."""
    log, labels, obs_file = kept_files(d)
    truth = {line["frame"]: observation_from_labels(line)
             for line in map(json.loads, labels.read_text().splitlines())
             if line.get("type") != "header"}
    events = [json.loads(x) for x in log.read_text().splitlines()]
    tracker = Tracker(HouseRules.from_dict(events[0]["rules"]), events[0]["seats"])
    calls = [(e["seat"], e["t_ms"]) for e in events if e["type"] == "call"]
    with open(obs_file, "rb") as fh:
        observations = pickle.load(fh)  # noqa: S301 - our own file
    per: dict[str, float] = defaultdict(float)
    total = 0.0
    open_: dict[str, tuple[Any, ...]] = {}
    spells: list[tuple[Any, ...]] = []
    for i, o in enumerate(observations):
        while calls and calls[0][1] <= o.t_ms:
            tracker.call(*calls.pop(0))
        tracker.update(o)
        if tracker.table is None:
            continue
        dt = observations[i + 1].t_ms - o.t_ms if i + 1 < len(observations) else 0.0
        seen_truth = truth.get(o.frame)
        for name, st in tracker.states.items():
            if ":river" not in name or st.stable is None or st.covered or not st.in_view:
                continue
            total += dt
            cam = tuple(st.stable)
            eng = tuple(c.code for c in tracker.table.pile(name))
            tru = tuple(seen_truth[name].codes) if seen_truth is not None else None
            cls = classify(cam, eng, tru)
            if cls:
                per[cls] += dt
            cur = open_.get(name)
            if cur is not None and cur[0] != cls:
                spells.append((name, *cur, o.t_ms))
                del open_[name]
            if cls and name not in open_:
                open_[name] = (cls, o.t_ms, cam, eng, tru)
    end = observations[-1].t_ms if observations else 0.0
    spells += [(name, *cur, end) for name, cur in open_.items()]
    return total, per, spells


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("rounds", type=Path, nargs="+", help="round folders of kept observations")
    p.add_argument("--episodes", action="store_true", help="list spells of 5 s or more")
    args = p.parse_args(argv)
    for d in args.rounds:
        total, per, spells = measure(d)
        shares = ", ".join(f"{k} {v / max(total, 1.0):.1%}" for k, v in sorted(per.items()))
        print(f"{d.name}: column time {total / 1000:.0f} s; {shares}")
        if args.episodes:
            for name, cls, t0, cam, eng, tru, t1 in sorted(spells, key=lambda s: s[2]):
                if t1 - t0 >= LONG_MS:
                    print(f"  {name:14} {cls:15} {t0 / 1000:6.1f}-{t1 / 1000:6.1f} s  camera "
                          f"{' '.join(cam)} | engine {' '.join(eng)} | truth "
                          f"{' '.join(tru or ())}")


if __name__ == "__main__":
    main()
