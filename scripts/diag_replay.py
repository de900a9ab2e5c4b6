"""First divergences between the tracker's log and the simulator's, round by round, from the
renders ``scripts.eval_replay --cache DIR`` kept: oracle observations, or with ``--full`` the
real path's observations that ``eval_replay --mode full --cache DIR`` kept.

    python -m scripts.diag_replay cache/eval --only 2,5 --n 15
    python -m scripts.diag_replay cache/evalfull --full --n 40
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path
from typing import Any

from rules import HouseRules
from scripts.eval_replay import MODELS_TAG, TOL_MS, compare, feed
from vision.tracker import Tracker, oracle_observations


def _key(e: dict[str, Any]) -> tuple[Any, ...]:
    to = "lake" if e["to"].startswith("lake:") else e["to"]
    return (e["seat"], e["card"], e["from"], to, e.get("n", 1))


def unmatched(truth: list[dict[str, Any]], got: list[dict[str, Any]]
              ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Truth moves not found, and tracker moves not in the truth (same greedy matching as the
    eval)."""
    used: set[int] = set()
    miss = []
    for t in truth:
        for i, g in enumerate(got):
            if i not in used and _key(t) == _key(g) and abs(t["t_ms"] - g["t_ms"]) <= TOL_MS:
                used.add(i)
                break
        else:
            miss.append(t)
    extra = [g for i, g in enumerate(got) if i not in used]
    return miss, extra


def run(log: Path, labels: Path, observations: Path | None = None,
        tracker_cls: type[Tracker] = Tracker) -> tuple[list[dict[str, Any]], Tracker]:
    """The simulator's events and the tracker (a ``tracker_cls``) after replaying the labels
    (or the kept observations of the real path) with the log's calls as input."""
    events = [json.loads(x) for x in log.read_text().splitlines()]
    start = events[0]
    tracker = tracker_cls(HouseRules.from_dict(start["rules"]), start["seats"])
    calls = [(e["seat"], e["t_ms"]) for e in events if e["type"] == "call"]
    if observations is not None:
        with open(observations, "rb") as fh:
            return events, feed(tracker, pickle.load(fh), calls)  # noqa: S301 - our own file
    lines = [json.loads(x) for x in labels.read_text().splitlines()]
    return events, feed(tracker, oracle_observations(lines), calls)


def _fmt(e: dict[str, Any]) -> str:
    if e["type"] == "move":
        n = f" n{e['n']}" if e.get("n", 1) != 1 else ""
        inf = " (inferred)" if e.get("inferred") else ""
        return f"{e['t_ms']:>7} s{e['seat']} {e['card']:>3} {e['from']} -> {e['to']}{n}{inf}"
    if e["type"] == "flag":
        return f"{e['t_ms']:>7} FLAG s{e['seat']} {e['rule']} {e.get('card')}"
    return f"{e['t_ms']:>7} {e['type']} {e.get('seat', '')} {e.get('cards', '')}"


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("cache", type=Path)
    p.add_argument("--only", default=None)
    p.add_argument("--n", type=int, default=12, help="divergences to print per round")
    p.add_argument("--flags", action="store_true", help="also flag differences")
    p.add_argument("--full", action="store_true",
                   help="the real path's kept observations (*.observations.pkl)")
    p.add_argument("--incremental", action="store_true",
                   help="with --full: the change-gated detector's observations "
                   "(*.incremental.observations.pkl, eval_replay --incremental)")
    args = p.parse_args(argv)
    def kept(log: Path) -> Path | None:
        """The kept observations of ``log``'s round (gated runs: any gate variant's,
        ``.incremental[.settle_ms100].observations.pkl``; the newest; those of ``models/``,
        not of another models folder: ``eval_replay --models``)."""
        middle = ".incremental*" if args.incremental else ""
        found = sorted((q for q in log.parent.glob(f"{log.stem}{middle}.observations.pkl")
                        if MODELS_TAG not in q.name), key=lambda q: q.stat().st_mtime)
        return found[-1] if found else None

    newest: dict[int, Path] = {}
    pattern = "r*fps.jsonl" if args.full else "r*-labels.jsonl"
    for q in sorted(args.cache.glob(pattern), key=lambda q: q.stat().st_mtime):
        if (kept(q) is not None if args.full else
                q.with_name(q.name.replace("-labels.jsonl", "-labels.labels.jsonl")).exists()):
            newest[int(q.name[1:].split("-")[0])] = q
    for _i, log in sorted(newest.items()):
        i = int(log.name[1:].split("-")[0])
        if args.only and str(i) not in args.only.split(","):
            continue
        labels = log.with_name(log.name.replace("-labels.jsonl", "-labels.labels.jsonl"))
        if args.full:
            truth, tracker = run(log, labels, kept(log))
        elif not labels.exists():
            continue
        else:
            truth, tracker = run(log, labels)
        got = tracker.log()
        c = compare(truth, got)
        tm = [e for e in truth if e["type"] == "move"]
        gm = [e for e in got if e["type"] == "move"]
        miss, extra = unmatched(tm, gm)
        print(f"== round {i} seats {truth[0]['seats']} moves {c['moves_hit']}/{c['moves_true']}"
              f" got {c['moves_got']} own {c['own_right']}/{c['own_total']} flags "
              f"{c['flags_hit']}/{c['flags_true']} got {c['flags_got']} scores {c['scores']}"
              f" vs {c['truth_scores']}")
        rows = [("MISS", e) for e in miss] + [("EXTRA", e) for e in extra]
        if args.flags:
            tf = [e for e in truth if e["type"] == "flag"]
            gf = [e for e in got if e["type"] == "flag"]
            for e in tf:
                if not any((g["seat"], g["rule"], g.get("card")) == (e["seat"], e["rule"],
                                                                     e.get("card"))
                           and abs(g["t_ms"] - e["t_ms"]) <= TOL_MS for g in gf):
                    rows.append(("MISSF", e))
            for g in gf:
                if not any((g["seat"], g["rule"], g.get("card")) == (e["seat"], e["rule"],
                                                                     e.get("card"))
                           and abs(g["t_ms"] - e["t_ms"]) <= TOL_MS for e in tf):
                    rows.append(("EXTRAF", g))
        rows.sort(key=lambda r: r[1]["t_ms"])
        for tag, e in rows[:args.n]:
            print(f"  {tag:<6} {_fmt(e)}")


if __name__ == "__main__":
    sys.exit(main())
