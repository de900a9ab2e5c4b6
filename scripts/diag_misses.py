"""Where the real path's misses are, summed over kept observations: the simulator's moves the
tracker did not report, grouped by (source kind, destination kind, what the tracker did with
that card nearby), the tracker's extra moves grouped the same way, each round's lake
cards and nertz cards left against the truth, and the flags: false ones and missed ones by
rule (a ``foundation_rank`` flag of a card on its identical card, a lost race or an inferred
twin, counted apart as ``X on X``).

    python -m scripts.diag_misses cache/real26
    python -m scripts.diag_misses cache/real26 --only r8,r14 --list

``--list`` prints each missed move with the tracker's moves of its card nearby, each extra
move with the simulator's (an extra with none is a card misread: the reader's code never
moved then), and each false or missed flag.

``--settled`` also tells, for each missed move the tracker did nothing with (``none``), what
the tracker's own settled views showed of it (:func:`settled_evidence`): ``seen`` (the source
held the card and showed it gone, the destination showed it arrive: the tracker saw the move
and did not commit it, a rule to look at) or only one end of it, or neither (the camera's
reads never showed it: a reader's or the gate's miss).

    python -m scripts.diag_misses cache/real26 --list --settled
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

from scripts.diag_replay import _fmt, run, unmatched
from scripts.eval_replay import flag_key, pairs
from scripts.sum_replay import kept_files, round_dirs
from vision.observation import Observation
from vision.tracker import Tracker

#: how far apart in time a tracker move of the same card may be to count as "near"
NEAR_MS = 8000


def kind(place: str) -> str:
    """``lake``, ``river``, ``waste``, ``nertz`` or ``stock`` for a place name."""
    if place.startswith("lake"):
        return "lake"
    return place.split(":")[1].rstrip("0123456789")


def cause(miss: dict[str, Any], got: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """What the tracker did with a missed move's card near it: ``none``, ``wrong seat``,
    ``wrong src`` or ``other`` (same seat and source, another time or run length); and
    those moves."""
    near = [g for g in got if g["card"] == miss["card"] and kind(g["to"]) == kind(miss["to"])
            and abs(g["t_ms"] - miss["t_ms"]) < NEAR_MS]
    if not near:
        return "none", near
    if near[0]["seat"] != miss["seat"]:
        return "wrong seat", near
    return ("wrong src" if near[0]["from"] != miss["from"] else "other"), near


#: Settled views of every place after each observation: (t_ms, {place: cards or None}).
SettledHistory = list[tuple[float, dict[str, tuple[str, ...] | None]]]


class RecordingTracker(Tracker):
    """A :class:`~vision.tracker.Tracker` that keeps each place's settled view after every
    observation (:attr:`settled`), for :func:`settled_evidence`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.settled: SettledHistory = []

    def update(self, obs: Observation) -> list[dict[str, Any]]:
        events = super().update(obs)
        self.settled.append((float(obs.t_ms),
                             {name: st.stable for name, st in self.states.items()}))
        return events


def settled_evidence(miss: dict[str, Any], settled: SettledHistory,
                     before_ms: float = 3000.0, after_ms: float = 4000.0) -> str:
    """What the tracker's settled views showed of a missed move: ``seen`` (its source held
    the card in the ``before_ms`` up to it and showed it gone in the ``after_ms`` after, and
    its destination, or any lake pile for a lake move, showed it on top then), ``left only``,
    ``arrived only`` or ``-`` (neither)."""
    t, card, src, dst = miss["t_ms"], miss["card"], miss["from"], miss["to"]
    before = [views for tt, views in settled if t - before_ms <= tt <= t]
    after = [views for tt, views in settled if t < tt <= t + after_ms]
    had = any(card in (views.get(src) or ()) for views in before)
    gone = any(views.get(src) is not None and card not in (views.get(src) or ())
               for views in after)
    if dst.startswith("lake"):
        arrived = any(any(name.startswith("lake") and cards and cards[-1] == card
                          for name, cards in views.items()) for views in after)
    else:
        arrived = any(card in (views.get(dst) or ()) for views in after)
    left = had and gone
    return "seen" if left and arrived else "left only" if left else \
        "arrived only" if arrived else "-"


def truth_near(extra: dict[str, Any], truth: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The simulator's moves of an extra move's card near it in time (what really
    happened to the card: another seat's, another source, or nothing: a misread)."""
    return [m for m in truth if m["card"] == extra["card"]
            and abs(m["t_ms"] - extra["t_ms"]) < NEAR_MS]


def flag_errors(truth: list[dict[str, Any]], got: list[dict[str, Any]]
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The tracker's flags no simulator flag matches (false) and the simulator's no
    tracker flag matches (missed), matched as ``scripts.eval_replay.compare`` counts them."""
    matched = pairs(truth, got, flag_key)
    hit_t, hit_g = {j for j, _i in matched}, {i for _j, i in matched}
    return ([g for i, g in enumerate(got) if i not in hit_g],
            [t for j, t in enumerate(truth) if j not in hit_t])


def flag_kind(flag: dict[str, Any]) -> str:
    """A flag's rule, with ``foundation_rank`` of a card laid on its identical card
    (``"7S on 7S, needs rank 8"``) told apart as ``foundation_rank X on X``."""
    words = str(flag.get("detail", "")).split()
    if flag["rule"] == "foundation_rank" and len(words) >= 3 and words[1] == "on" and \
            words[0] == words[2].rstrip(","):
        return "foundation_rank X on X"
    return flag["rule"]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("cache", type=Path)
    p.add_argument("--only", default=None, help="comma-separated round folders, e.g. r1,r18")
    p.add_argument("--list", action="store_true",
                   help="print every missed move, and every extra one with the simulator's "
                        "moves of its card nearby")
    p.add_argument("--models", default=None, metavar="NAME",
                   help="the observations made with the models folder of this name "
                        "(scripts.eval_replay --models DIR); default: those of models/")
    p.add_argument("--settled", action="store_true",
                   help="tell what the tracker's settled views showed of each missed move it "
                        "did nothing with (see the module doc)")
    args = p.parse_args(argv)
    dirs = round_dirs(args.cache, set(args.only.split(",")) if args.only else None,
                      args.models)
    if not dirs:
        p.error("no round folders with kept observations"
                + (f" of models {args.models!r}" if args.models else "") + f" under {args.cache}")
    missed: Counter[tuple[str, str, str]] = Counter()
    extra: Counter[tuple[str, str]] = Counter()
    false_flags: Counter[str] = Counter()
    missed_flags: Counter[str] = Counter()
    settled_seen: Counter[str] = Counter()
    right_flags = 0
    for d in dirs:
        truth, tracker = run(*kept_files(d, args.models),
                             tracker_cls=RecordingTracker if args.settled else Tracker)
        got = [e for e in tracker.log() if e["type"] == "move"]
        misses, extras = unmatched([e for e in truth if e["type"] == "move"], got)
        for m in misses:
            why, near = cause(m, got)
            missed[(kind(m["from"]), kind(m["to"]), why)] += 1
            shown = ""
            if args.settled and why == "none":
                assert isinstance(tracker, RecordingTracker)
                evidence = settled_evidence(m, tracker.settled)
                settled_seen[evidence] += 1
                shown = f" | settled: {evidence}"
            if args.list:
                print(f"{d.name:>4} MISS {_fmt(m)} | {why} | " + "; ".join(_fmt(g) for g in near)
                      + shown)
        for x in extras:
            extra[(kind(x["from"]), kind(x["to"]))] += 1
            if args.list:
                near = truth_near(x, [e for e in truth if e["type"] == "move"])
                print(f"{d.name:>4} EXTRA {_fmt(x)} | truth: " +
                      ("; ".join(_fmt(m) for m in near) or "none"))
        t_flags = [e for e in truth if e["type"] == "flag"]
        g_flags = [e for e in tracker.log() if e["type"] == "flag"]
        wrong, unseen = flag_errors(t_flags, g_flags)
        right_flags += len(g_flags) - len(wrong)
        for f, counter, what in [(f, false_flags, "FALSE FLAG") for f in wrong] + \
                [(f, missed_flags, "MISSED FLAG") for f in unseen]:
            counter[flag_kind(f)] += 1
            if args.list:
                print(f"{d.name:>4} {what} {f['t_ms']:>7.0f} seat{f['seat']} {f['rule']} "
                      f"{f.get('card')} {f.get('place')} {f.get('detail', '')}")
        t_end = next(e for e in truth if e["type"] == "round_end")
        g_end = next((e for e in tracker.log() if e["type"] == "round_end"), {})
        print(f"{d.name:>4} lake cards {t_end['lake_cards']} got {g_end.get('lake_cards')}; "
              f"nertz left {t_end['nertz_left']} got {g_end.get('nertz_left')}")
    print(f"missed {sum(missed.values())}:")
    for (src, dst, why), n in missed.most_common():
        print(f"  {src:>5} -> {dst:<5} {why:<10} {n}")
    if args.settled:
        print("missed moves the tracker did nothing with, by what its settled views showed: "
              + ", ".join(f"{k} {n}" for k, n in settled_seen.most_common()))
    print(f"extra {sum(extra.values())}:")
    for (src, dst), n in extra.most_common():
        print(f"  {src:>5} -> {dst:<5} {n}")
    for what, counter in (("false flags", false_flags), ("missed flags", missed_flags)):
        print(f"{what} {sum(counter.values())} (flags right {right_flags}):")
        for rule, n in counter.most_common():
            print(f"  {rule:<32} {n}")


if __name__ == "__main__":
    main()
