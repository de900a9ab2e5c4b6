"""How far the card looks (:func:`vision.crops.card_look`) can be trusted for lake ownership,
summed over kept observations: each lake card the tracker credits from a seat's layout,
right or wrong seat against the simulator's log, grouped by how far apart the card on the
pile looked from the credited source's sightings of its code (no look: the source never
showed the code with its outline found).

    python -m scripts.diag_looks cache/real28
    python -m scripts.diag_looks cache/real28 --only r8,r13 --list

``--list`` prints each wrong credit with the looks of the code at the other seats' places.
The rounds' observations must carry looks (observed with session 27's detector or later).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rules import Move
from scripts.diag_replay import run
from scripts.sum_replay import kept_files, round_dirs
from vision.tracker import Tracker

#: the groups of look distance (upper bounds; the last is open)
BANDS = (60.0, 100.0)
#: how long before the credit (and after) the simulator's move of the card may be
BEFORE_MS, AFTER_MS = 10000, 1000


def band(apart: float | None) -> str:
    """The group of a look distance: ``no look``, ``<= 60``, ``60-100``, ``> 100``."""
    if apart is None:
        return "no look"
    if apart <= BANDS[0]:
        return f"<= {BANDS[0]:.0f}"
    if apart <= BANDS[1]:
        return f"{BANDS[0]:.0f}-{BANDS[1]:.0f}"
    return f"> {BANDS[1]:.0f}"


class _Watched(Tracker):
    """A tracker that notes, as it credits each lake card, how alike its looks were."""

    credits: list[dict[str, Any]]

    def _commit(self, action: Any, t: float, frame: int, **kwargs: Any) -> bool:
        done = super()._commit(action, t, frame, **kwargs)
        if done and isinstance(action, Move) and action.dst.startswith("lake:") and \
                not action.src.startswith("lake:"):
            pile = self._obs_place_of(action.dst)
            others = {name: self._looks_apart(name, pile, action.card)
                      for (name, c) in self.look_at
                      if c == action.card and name.startswith("seat")
                      and not name.startswith(f"seat{action.seat}:")}
            self.credits.append({"t_ms": self.t_ms, "seat": action.seat, "card": action.card,
                                 "from": action.src,
                                 "apart": self._looks_apart(self._obs_place_of(action.src),
                                                            pile, action.card),
                                 "others": {k: round(v, 1) for k, v in others.items()
                                            if v is not None}})
        return done


def round_credits(d: Path) -> list[dict[str, Any]]:
    """The tracker's lake credits of one round folder, each marked right or wrong seat."""
    log, labels, obs = kept_files(d)
    _Watched.credits = []
    run(log, labels, obs, tracker_cls=_Watched)
    truth = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    moves = [m for m in truth if m.get("type") == "move" and m["to"].startswith("lake:")]
    out = []
    for c in _Watched.credits:
        near = [m for m in moves if m["card"] == c["card"]
                and c["t_ms"] - BEFORE_MS < m["t_ms"] <= c["t_ms"] + AFTER_MS]
        out.append({**c, "near": near, "right": any(m["seat"] == c["seat"] for m in near)})
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("cache", type=Path)
    p.add_argument("--only", default=None, help="comma-separated round folders, e.g. r8,r13")
    p.add_argument("--list", action="store_true", help="print each wrong credit")
    args = p.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    table: dict[str, list[int]] = {}
    for d in round_dirs(args.cache, only):
        for c in round_credits(d):
            counts = table.setdefault(band(c["apart"]), [0, 0])
            counts[0 if c["right"] else 1] += 1
            if args.list and not c["right"] and c["near"]:
                apart = "no look" if c["apart"] is None else f"{c['apart']:.1f}"
                truth = ", ".join(f"seat{m['seat']} {m['from']} {m['t_ms']}" for m in c["near"])
                print(f"{d.name:>4} {c['t_ms']:8.0f} {c['card']:>3} credited seat{c['seat']} "
                      f"{c['from']} (look {apart}) | truth {truth} | others {c['others']}")
    order = [band(None), band(0.0), band(BANDS[1]), band(BANDS[1] + 1)]
    print("credited source's look of the card, apart from the pile's: right / wrong seat")
    for key in order:
        right, wrong = table.get(key, [0, 0])
        print(f"  {key:>8}: {right} / {wrong}")


if __name__ == "__main__":
    main()
