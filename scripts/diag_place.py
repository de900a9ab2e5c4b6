"""One or more places of a round, frame by frame, from kept real-path observations: each time
the tracker's settled view, its covered state, the camera's raw read (with the reader's next
reads, ``--reads``) or the engine's pile changes, a line. Lake places show the engine pile
they are mapped to. For following one card's story through the tracker.

    python -m scripts.diag_place cache/real26/r19 seat0:nertz 50 62 --reads
    python -m scripts.diag_place cache/real26/r14 seat2:river1,lake:2 54 58
"""

from __future__ import annotations

import argparse
import json
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rules import HouseRules
from scripts.sum_replay import kept_files
from vision.tracker import Tracker


def read_text(cards: list[Any], reads: bool) -> str:
    """The camera's cards of a place, deepest first; with ``reads``, each card's next reads
    and their probabilities in braces."""
    out = []
    for c in cards:
        alts = getattr(c, "alternatives", ()) or ()
        more = "{" + ",".join(f"{a}:{p:.2f}" for a, p in alts) + "}" if reads and alts else ""
        out.append(c.code + more)
    return " ".join(out)


def engine_text(tracker: Tracker, place: str) -> str:
    """The engine's cards at a place (a lake place: the pile it is mapped to, or ?)."""
    table = tracker.table
    if table is None:
        return "?"
    if place.startswith("lake:"):
        j = tracker.lake_map.get(place)
        if j is None or j >= len(table.lake):
            return "?"
        return f"lake:{j} " + " ".join(pl.card.code for pl in table.lake[j].placements)
    return " ".join(c.code for c in table.pile(place))


def changes(rows: Iterator[tuple[float, str, tuple[Any, ...]]]
            ) -> Iterator[tuple[float, str, tuple[Any, ...]]]:
    """The rows whose state differs from the place's row before (time, place, state)."""
    last: dict[str, tuple[Any, ...]] = {}
    for t, place, state in rows:
        if last.get(place) != state:
            last[place] = state
            yield t, place, state


def trace(d: Path, places: list[str], t0: float, t1: float, reads: bool,
          models: str | None = None) -> Iterator[tuple[float, str, tuple[Any, ...]]]:
    """(t_ms, place, (settled, covered, raw read, engine)) for every observation in the
    window, after the tracker took it (``models``: the kept observations of that models
    folder, as ``scripts.sum_replay --models``)."""
    log, _labels, obs_file = kept_files(d, models)
    events = [json.loads(x) for x in log.read_text().splitlines()]
    tracker = Tracker(HouseRules.from_dict(events[0]["rules"]), events[0]["seats"])
    calls = [(e["seat"], e["t_ms"]) for e in events if e["type"] == "call"]
    with open(obs_file, "rb") as fh:
        observations = pickle.load(fh)  # noqa: S301 - our own file
    for o in observations:
        while calls and calls[0][1] <= o.t_ms:
            tracker.call(*calls.pop(0))
        tracker.update(o)
        if o.t_ms > t1:
            break
        if o.t_ms < t0 or tracker.table is None:
            continue
        for place in places:
            st = tracker.states.get(place)
            view = o.places.get(place)
            settled = " ".join(st.stable) if st is not None and st.stable is not None else "-"
            raw = read_text(view.cards, reads) + f" c{view.covered:.1f}" if view else "-"
            yield o.t_ms, place, (settled, bool(st and st.covered), raw,
                                  engine_text(tracker, place))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("round", type=Path, help="a round folder of kept observations")
    p.add_argument("places", help="comma-separated place names, e.g. seat0:nertz,lake:2")
    p.add_argument("t0", type=float, help="from this many seconds")
    p.add_argument("t1", type=float, help="to this many seconds")
    p.add_argument("--reads", action="store_true", help="show the reader's next reads")
    p.add_argument("--models", default=None,
                   help="the observations made with this models folder's name")
    args = p.parse_args(argv)
    rows = trace(args.round, args.places.split(","), args.t0 * 1000, args.t1 * 1000,
                 args.reads, args.models)
    for t, place, (settled, covered, raw, engine) in changes(rows):
        print(f"{t / 1000:7.1f} {place:14} settled[{settled}]{' covered' if covered else ''}"
              f" raw[{raw}] | engine[{engine}]")


if __name__ == "__main__":
    main()
