"""Real-path figures summed over rounds of kept observations: the tracker replays each
round's observations (as ``scripts.diag_replay DIR --full --incremental`` does) and
``scripts.eval_replay.compare`` scores it; a tracker switch may be set for the run.

    python -m scripts.sum_replay cache/real26
    python -m scripts.sum_replay cache/real26 --set LOST_CARDS_BACK=False --only r1,r18
    python -m scripts.sum_replay cache/real26 --models gpu51   # eval_replay --models DIR/gpu51

``CACHE`` holds one folder per round (``rN``, made by ``scripts.eval_replay --mode full
--incremental --only N --cache CACHE/rN``).
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import Any

from scripts.diag_replay import run
from scripts.eval_replay import MODELS_TAG, compare
from vision.tracker import Tracker


def _gated(d: Path, stem: str, models: str | None) -> list[Path]:
    """A round folder's kept gated observations made with the models folder named
    ``models`` (``scripts.eval_replay --models``), or with ``models/`` when None."""
    files = d.glob(f"{stem}.incremental*.observations.pkl")
    if models is None:
        return [q for q in files if MODELS_TAG not in q.name]
    return [q for q in files if q.name.endswith(f"{MODELS_TAG}{models}.observations.pkl")]


def round_dirs(cache: Path, only: set[str] | None = None, models: str | None = None
               ) -> list[Path]:
    """The round folders of ``cache`` that hold kept gated observations (of the models
    folder named ``models``: see :func:`kept_files`), in round order."""
    found = []
    for d in cache.iterdir():
        if not d.is_dir() or not d.name[1:].isdigit() or only and d.name not in only:
            continue
        if next(d.glob("r*fps.jsonl"), None) and _gated(d, "*", models):
            found.append(d)
    return sorted(found, key=lambda d: int(d.name[1:]))


def kept_files(d: Path, models: str | None = None) -> tuple[Path, Path, Path]:
    """A round folder's event log, render labels and newest kept gated observations: made
    with ``models/``, or with the models folder named ``models`` (``scripts.eval_replay
    --models DIR``)."""
    log = next(d.glob("r*fps.jsonl"))
    kept = _gated(d, log.stem, models)
    if not kept:
        raise FileNotFoundError(f"{d}: no kept gated observations"
                                + (f" of models {models!r}" if models else ""))
    obs = max(kept, key=lambda q: q.stat().st_mtime)
    return log, log.with_name(log.name.replace(".jsonl", ".labels.jsonl")), obs


def score_round(d: Path, models: str | None = None) -> dict[str, Any]:
    """``compare``'s counts for one round folder (its newest kept observations, of the
    models folder named ``models``: see :func:`kept_files`)."""
    truth, tracker = run(*kept_files(d, models))
    return compare(truth, tracker.log())


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("cache", type=Path)
    p.add_argument("--only", default=None, help="comma-separated round folders, e.g. r1,r18")
    p.add_argument("--set", action="append", default=[], metavar="ATTR=VALUE",
                   help="a Tracker class attribute for this run (a Python literal)")
    p.add_argument("--models", default=None, metavar="NAME",
                   help="the observations made with the models folder of this name "
                        "(scripts.eval_replay --models DIR); default: those of models/")
    args = p.parse_args(argv)
    for item in args.set:
        name, _, value = item.partition("=")
        if not hasattr(Tracker, name):
            p.error(f"Tracker has no attribute {name!r}")
        setattr(Tracker, name, ast.literal_eval(value))
    dirs = round_dirs(args.cache, set(args.only.split(",")) if args.only else None,
                      args.models)
    if not dirs:
        p.error("no round folders with kept observations"
                + (f" of models {args.models!r}" if args.models else "") + f" under {args.cache}")
    keys = ("moves_hit", "moves_got", "moves_true", "flags_got", "flags_hit", "flags_true")
    total = dict.fromkeys(keys, 0)
    err, exact = 0.0, 0
    for d in dirs:
        c = score_round(d, args.models)
        print(f"{d.name:>4} moves {c['moves_hit']} / {c['moves_got']} (of {c['moves_true']}), "
              f"flags {c['flags_got']} ({c['flags_hit']} of {c['flags_true']}), scores "
              f"{c['scores']} vs {c['truth_scores']}, MAE {c['abs_err']:.2f}", flush=True)
        for k in keys:
            total[k] += c[k]
        err += c["abs_err"]
        exact += c["exact"]
    print(f"TOTAL {len(dirs)} rounds: moves {total['moves_hit']} / {total['moves_got']} "
          f"(of {total['moves_true']}), precision / recall "
          f"{total['moves_hit'] / max(total['moves_got'], 1):.3f} / "
          f"{total['moves_hit'] / max(total['moves_true'], 1):.3f}; flags {total['flags_got']} "
          f"({total['flags_hit']} of {total['flags_true']}); mean MAE {err / len(dirs):.2f}; "
          f"exact {exact}")


if __name__ == "__main__":
    sys.exit(main())
