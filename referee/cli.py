"""The ``nertz`` command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table as RichTable

from rules import PRESETS, HouseRules, RulesError
from rules.log import LogError, LogReplay, replay, write_log
from rules.simulator import simulate_match

app = typer.Typer(help="Nertz referee: simulate, check and score rounds of Nertz.",
                  no_args_is_help=True, add_completion=False)
err = Console(stderr=True, soft_wrap=True)
out = Console(soft_wrap=True)


def _fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"[red]error:[/red] {message}", highlight=False)
    return typer.Exit(code)


def _rules(preset: str, rules_file: Path | None, options: list[str]) -> HouseRules:
    try:
        rules = HouseRules.from_toml(rules_file) if rules_file else HouseRules.preset(preset)
        if options:
            overrides = {}
            for item in options:
                if "=" not in item:
                    raise RulesError(f"--option needs NAME=VALUE, got {item!r}")
                name, value = item.split("=", 1)
                try:
                    overrides[name.strip()] = json.loads(value)
                except json.JSONDecodeError:
                    overrides[name.strip()] = value
            rules = HouseRules.from_dict({**rules.to_dict(), **overrides})
    except (RulesError, OSError) as exc:
        raise _fail(str(exc)) from None
    return rules


@app.command()
def simulate(
    players: Annotated[int, typer.Option("--players", "-n", help="2 to 8 players")] = 4,
    preset: Annotated[str, typer.Option(help=f"one of {', '.join(PRESETS)}")] = "nertz",
    seed: Annotated[int, typer.Option(help="same seed, same log")] = 0,
    out_path: Annotated[Path, typer.Option("--out", "-o", help="event log (.jsonl)")] = Path(
        "round.jsonl"),
    rounds: Annotated[int, typer.Option(help="play a match of up to this many rounds")] = 1,
    mistakes: Annotated[float, typer.Option(
        help="rate of illegal placements and false calls (0-1)")] = 0.0,
    rules_file: Annotated[Path | None, typer.Option("--rules", help="house rules TOML")] = None,
    option: Annotated[list[str] | None, typer.Option(
        "--option", help="override one house rule, NAME=VALUE (repeatable)")] = None,
) -> None:
    """Play whole rounds with bot players and write the ground-truth event log."""
    if not 2 <= players <= 8:
        raise _fail(f"--players must be 2 to 8, got {players}")
    if rounds < 1:
        raise _fail(f"--rounds must be at least 1, got {rounds}")
    if not 0 <= mistakes <= 1:
        raise _fail(f"--mistakes is a rate between 0 and 1, got {mistakes}")
    rules = _rules(preset, rules_file, option or [])
    events = list(simulate_match(players, rules, seed, mistakes, rounds))
    try:
        n = write_log(events, out_path)
    except OSError as exc:
        raise _fail(f"cannot write {out_path}: {exc}") from None
    ends = [e for e in events if e["type"] == "round_end"]
    err.print(f"wrote {n} events, {len(ends)} round(s) to {out_path}", highlight=False)
    _print_scores(_summary(events), err)


def _summary(events: list[dict]) -> dict:
    ends = [e for e in events if e["type"] == "round_end"]
    match_end = next((e for e in events if e["type"] == "match_end"), None)
    return {"rounds": [{k: e.get(k) for k in ("reason", "caller", "lake_cards",
                                                "nertz_left", "false_calls", "scores")}
                       for e in ends], "match": match_end}


def _print_scores(summary: dict, console: Console) -> None:
    rounds = summary["rounds"]
    if not rounds:
        return
    seats = len(rounds[0]["scores"])
    grid = RichTable(title="scores")
    grid.add_column("round")
    for k in range(seats):
        grid.add_column(f"seat{k}", justify="right")
    grid.add_column("end")
    for n, r in enumerate(rounds, start=1):
        grid.add_row(str(n), *[str(s) for s in r["scores"]],
                     f"{r['reason']}" + (f" by seat{r['caller']}" if r["caller"] is not None
                                         else ""))
    console.print(grid)


def _load(log: Path) -> LogReplay:
    try:
        return replay(log)
    except LogError as exc:
        raise _fail(f"{log}: {exc}", 1) from None


@app.command()
def check(log: Annotated[Path, typer.Argument(help="event log (.jsonl)")]) -> None:
    """Replay a log through the rules: list each illegal action and the recomputed scores.
    Exit 0 only when the log is consistent."""
    result = _load(log)
    for r in result.rounds:
        out.print(f"round {r.round_no}: {len(r.flags)} illegal action(s)", highlight=False)
        for f in r.flags:
            state = f" (corrected at {f.corrected_at} ms)" if f.corrected else ""
            who = f"seat{f.seat}" if f.seat is not None else "table"
            out.print(f"  {f.t_ms:>8} ms  {f.rule:<28} {who} {f.card or ''} "
                      f"{f.place or ''}{state}", highlight=False)
        s = r.score
        out.print(f"  end: {s.reason}" + (f" by seat{s.caller}" if s.caller is not None else "")
                  + f"; lake {s.lake_cards}, nertz left {s.nertz_left}, scores {s.scores}",
                  highlight=False)
        for p in r.problems:
            out.print(f"  [red]inconsistent:[/red] {p}", highlight=False)
    for p in result.problems:
        out.print(f"[red]inconsistent:[/red] {p}", highlight=False)
    if result.consistent:
        out.print("verdict: consistent", highlight=False)
    else:
        out.print("verdict: INCONSISTENT", highlight=False)
        raise typer.Exit(1)


@app.command()
def score(
    log: Annotated[Path, typer.Argument(help="event log (.jsonl)")],
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Print the scores of every round in a log and the match standings."""
    result = _load(log)
    data = {"rounds": [{"round": r.round_no, **r.score.to_dict()} for r in result.rounds],
            "match": result.match.standings()}
    if as_json:
        sys.stdout.write(json.dumps(data) + "\n")
        return
    _print_scores({"rounds": data["rounds"]}, out)
    m = data["match"]
    out.print(f"totals {m['totals']}; winner: "
              f"{'undecided' if m['winner'] is None else m['winner']}", highlight=False)


@app.command()
def demo(
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="where to write")] = Path(
        "nertz-demo"),
) -> None:
    """Simulate a short 4-player match with mistakes, referee it, and print the verdict."""
    out_dir.mkdir(parents=True, exist_ok=True)
    log = out_dir / "match.jsonl"
    rules = HouseRules.preset("nertz", target=50)
    with err.status("simulating a 4-player match …"):
        events = list(simulate_match(4, rules, seed=2026, mistakes=0.08, rounds=3))
    write_log(events, log)
    err.print(f"wrote {log} ({len(events)} events)", highlight=False)
    check(log)


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
