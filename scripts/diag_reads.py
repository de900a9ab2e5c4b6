"""How often the full pipeline reads each place's exposed card right, frame by frame, from
the observations ``scripts.eval_replay --mode full --cache DIR`` kept, against the render
labels; and the most frequent misreads (truth → read). ``--by-seat``: per round and seat,
how many of the river columns' cards whose index shows whole the column's read holds (fanned
strips included), with how far the seat sits askew to the camera (a seat square to the
image is read best: the reader's crops are turned by quarter turns).

    python -m scripts.diag_reads cache/evalfull
    python -m scripts.diag_reads cache/real28        # a set of round folders (rN/)
    python -m scripts.diag_reads cache/real28/r13 --by-seat
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from collections import Counter
from pathlib import Path

from vision.observation import Observation, observation_from_labels
from vision.tracker import _twin

KINDS = ("nertz", "river", "waste", "stock", "lake")


def _kind(place: str) -> str:
    return "lake" if place.startswith("lake:") else place.split(":")[1].rstrip("0123456789")


def _iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    inter = max(0.0, w) * max(0.0, h)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def compare(observations: list[Observation], labels: list[dict]) -> tuple[Counter, Counter]:
    """(right/wrong per place kind, misreads (truth, read, kind)) over frames where the
    place is uncovered;
    ``(kind, "alt")`` counts the misreads whose truth is among the reader's alternatives.
    Lake piles are matched by the box of their top card (the table model numbers its own
    piles)."""
    tally: Counter = Counter()
    misreads: Counter = Counter()
    for obs, lab in zip(observations, labels, strict=False):
        truth = observation_from_labels(lab)
        lake_tops = [v.cards[-1] for k, v in obs.places.items()
                     if k.startswith("lake:") and v.cards]
        for name, view in truth.places.items():
            if view.covered > 0.02 or not view.cards:
                continue
            want = view.cards[-1].code
            if name.startswith("lake:"):
                box = view.cards[-1].box
                near = max(lake_tops, key=lambda c: _iou(c.box, box), default=None)
                top = near if near is not None and _iou(near.box, box) > 0.3 else None
            else:
                got = obs.places.get(name)
                top = got.cards[-1] if got is not None and got.cards else None
            read = top.code if top is not None else None
            ok = read == want
            if not ok:
                misreads[(want, read, _kind(name))] += 1
                if top is not None and want in [a for a, _p in top.alternatives]:
                    tally[(_kind(name), "alt")] += 1
            tally[(_kind(name), ok)] += 1
    return tally, misreads


def river_strips(observations: list[Observation], labels: list[dict], every: int = 10,
                 max_covered: float = 0.1) -> Counter:
    """Per seat, ``(seat, "cards")`` face-up river cards whose index shows whole (every
    ``every``-th frame, the column uncovered) and ``(seat, "read")`` those the column's
    read in the kept observation holds; ``(seat, "extra")`` reads beyond the column's cards."""
    by_frame = {o.frame: o for o in observations}
    tally: Counter = Counter()
    for lab in labels:
        obs = by_frame.get(lab.get("frame", -1))
        if obs is None or lab["frame"] % every:
            continue
        columns: dict[str, list[str]] = {}
        for card in lab.get("cards", []):
            place = card.get("place") or ""
            if card.get("face_up") and ":river" in place and any(
                    i.get("visible", 0.0) >= 0.95 for i in card.get("indices", [])):
                columns.setdefault(place, []).append(card["code"])
        for place, codes in columns.items():
            view = obs.places.get(place)
            if view is None or view.covered > max_covered:
                continue
            read = [c.code for c in view.cards]
            seat = place.split(":")[0]
            tally[(seat, "cards")] += len(codes)
            tally[(seat, "read")] += sum(c in read for c in codes)
            tally[(seat, "extra")] += max(0, len(read) - len(codes))
    return tally


def askew(header: dict) -> dict[str, float]:
    """Each seat's angle (degrees, 0–45) from square to the image: its angle at the table
    and the camera's yaw (the render header's)."""
    yaw = float(header.get("camera", {}).get("yaw_deg", 0.0))
    out = {}
    for seat in header.get("table", {}).get("seats", []):
        a = (float(seat["angle_deg"]) - yaw) % 90.0
        out[f"seat{seat['seat']}"] = min(a, 90.0 - a)
    return out


def misread_kind(truth: str, read: str | None) -> str:
    """What a misread got wrong: ``unread`` (no card read), ``twin suit`` (the other suit
    of its colour, the rank right), ``suit`` (a suit of the other colour), ``rank`` (the
    suit right), ``both``; ``back`` where the truth or the read is a back."""
    if read is None:
        return "unread"
    if "back" in (truth, read):
        return "back"
    if truth[:-1] == read[:-1]:
        return "twin suit" if _twin(truth) == read else "suit"
    return "rank" if truth[-1] == read[-1] else "both"


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("cache", type=Path)
    p.add_argument("--top", type=int, default=12, help="misreads to list")
    p.add_argument("--by-seat", action="store_true",
                   help="river strips read per round and seat (folders below too)")
    args = p.parse_args(argv)
    found = sorted(args.cache.glob("**/*.observations.pkl" if args.by_seat
                                   else "*.observations.pkl"))
    if not found:  # a set of round folders: each one's newest kept observations
        found = [max(pk, key=lambda q: q.stat().st_mtime) for d in sorted(args.cache.iterdir())
                 if d.is_dir() and (pk := list(d.glob("*.observations.pkl")))]
    if not found:
        sys.exit(f"no *.observations.pkl in {args.cache}: run scripts.eval_replay "
                 "--mode full --cache there first")
    if args.by_seat:
        for path in found:
            labels_path = path.with_name(path.name.split(".")[0] + ".labels.jsonl")
            with open(path, "rb") as fh:
                observations = pickle.load(fh)  # noqa: S301 - written by scripts.eval_replay
            lines = [json.loads(x) for x in labels_path.read_text().splitlines()]
            tally = river_strips(observations, lines[1:])
            angles = askew(lines[0])
            print(f"{path.parent.name}/{path.name.split('.')[0]}: " + " | ".join(
                f"{seat} ({angles.get(seat, 0.0):.0f}° askew) {tally[(seat, 'read')]} of "
                f"{tally[(seat, 'cards')]} ({tally[(seat, 'read')] / tally[(seat, 'cards')]:.2f})"
                f", {tally[(seat, 'extra')]} extra"
                for seat in sorted({k[0] for k in tally}) if tally[(seat, "cards")]))
        return
    tally: Counter = Counter()
    misreads: Counter = Counter()
    for path in found:
        # (r0-s1-1280x720-10fps[.incremental[.settle_ms100]].observations.pkl)
        labels_path = path.with_name(path.name.split(".")[0] + ".labels.jsonl")
        with open(path, "rb") as fh:
            observations = pickle.load(fh)  # noqa: S301 - written by scripts.eval_replay
        labels = [json.loads(x) for x in labels_path.read_text().splitlines()][1:]
        t, m = compare(observations, labels)
        tally.update(t)
        misreads.update(m)
    print(f"{len(found)} round(s) from {args.cache}")
    for kind in KINDS:
        right, wrong = tally[(kind, True)], tally[(kind, False)]
        if right + wrong:
            print(f"  {kind:<6} exposed card read right in {right} of {right + wrong} "
                  f"uncovered frames ({right / (right + wrong):.3f}); the truth is among "
                  f"the alternatives of {tally[(kind, 'alt')]} of the {wrong} misses")
    overall: Counter = Counter()
    for (w, r, _k), n in misreads.items():
        overall[(w, r)] += n
    kinds: Counter = Counter()
    for (w, r), n in overall.items():
        kinds[misread_kind(w, r)] += n
    print("  misreads by kind (frames): " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
    print("  most frequent misreads (truth > read: frames): " + ", ".join(
        f"{w}>{r}: {n}" for (w, r), n in overall.most_common(args.top)))
    for kind in KINDS:
        mine = Counter({(w, r): n for (w, r, k), n in misreads.items() if k == kind})
        if mine:
            print(f"    {kind}: " + ", ".join(f"{w}>{r}: {n}" for (w, r), n in
                                          mine.most_common(args.top // 2)))


if __name__ == "__main__":
    main()
