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
        word = r.table.rules.call_word
        for seat, t_ms, valid in r.table.calls:
            out.print(f"  call: seat{seat} {word!r} at {t_ms} ms, "
                      f"{'true' if valid else 'false'}", highlight=False)
        for seat, t_ms in sorted(r.table.nertz_emptied_at.items(), key=lambda x: x[1]):
            out.print(f"  seat{seat}'s nertz pile empty at {t_ms} ms", highlight=False)
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
    path: Annotated[str, typer.Option(help="real (the card detector and table model on "
                                      "the 1280x720 video, about a minute on 2 cores) or "
                                      "oracle (the observations from the labels shipped "
                                      "with the video: the tracker alone)")] = "real",
    no_open: Annotated[bool, typer.Option("--no-open", help="do not open the report")] = False,
) -> None:
    """Replay the bundled example round (a rendered 2-seat video) and open its report."""
    import webbrowser

    from referee.demo import DemoError, run_demo

    try:
        with err.status(f"replaying the bundled example round ({path} path) …"):
            report = run_demo(out_dir, path)
    except DemoError as exc:
        raise _fail(str(exc), 1) from None
    score = report.get("score") or {}
    page = (out_dir / "report.html").resolve()
    err.print(f"{report['path_note']}.", highlight=False)
    err.print(f"referee: scores {score.get('scores')} ({score.get('reason')}), "
              f"{len(report.get('flags', []))} flag(s); the simulator's truth: scores "
              f"{report['truth_scores']}, {report['truth_flags']} flag(s)", highlight=False)
    out.print(f"report: {page}", highlight=False)
    if not no_open:
        try:
            webbrowser.open(page.as_uri())
        except webbrowser.Error:
            pass


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise _fail(f"--size must be WIDTHxHEIGHT (e.g. 1280x720), not {text!r}") from None
    return w, h


@app.command()
def render(
    log: Annotated[Path | None, typer.Argument(help="event log (.jsonl) to render")] = None,
    out_path: Annotated[Path, typer.Option("--out", "-o",
                                           help="video (.mp4) or, with --still, image")] = Path(
        "round.mp4"),
    fps: Annotated[float, typer.Option(help="frames per second")] = 30.0,
    size: Annotated[str, typer.Option(help="WIDTHxHEIGHT")] = "1280x720",
    seed: Annotated[int, typer.Option(help="decks, backs, table, camera and light")] = 0,
    camera: Annotated[str | None, typer.Option(
        help="camera settings, e.g. 'height_mm=1200,tilt_deg=15,k1=-0.1' (default: random)")
    ] = None,
    split: Annotated[str, typer.Option(help="deck pool: train or test")] = "train",
    decks: Annotated[str | None, typer.Option(help="one deck per seat, comma-separated")] = None,
    backs: Annotated[str | None, typer.Option(help="one back id per seat, comma-separated")
                     ] = None,
    seconds: Annotated[float | None, typer.Option(help="render only this many seconds")
                       ] = None,
    round_no: Annotated[int, typer.Option("--round", help="which round of a match")] = 1,
    still: Annotated[bool, typer.Option("--still", help="a still scene of a random mid-game "
                                        "table (no log needed)")] = False,
    players: Annotated[int, typer.Option(help="--still: number of seats")] = 4,
    count: Annotated[int, typer.Option(help="--still: number of scenes")] = 1,
    markers: Annotated[bool, typer.Option("--markers", help="print four ArUco markers at "
                                          "the table's corners")] = False,
) -> None:
    """Render a simulated round as an overhead webcam video with exact per-frame labels
    (``<out>.labels.jsonl``), or with --still single scenes (``<out>.labels.json``)."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from vision.render.camera import Camera, CameraError
    from vision.render.decks import DeckError
    from vision.render.scene import SceneError
    from vision.render.video import RenderError, RoundRenderer, VideoSettings, render_video

    w, h = _size(size)
    deck_list = tuple(d.strip() for d in decks.split(",")) if decks else None
    back_list = tuple(b.strip() for b in backs.split(",")) if backs else None
    try:
        cam = Camera.parse(camera, width=w, height=h) if camera else None
        if still:
            _render_stills(out_path, players, count, seed, (w, h), split, deck_list,
                           back_list, cam, markers)
            return
        if log is None:
            raise _fail("give an event log to render, or --still for a still scene")
        settings = VideoSettings(fps=fps, size=(w, h), seed=seed, camera=cam, split=split,
                                 decks=deck_list, backs=back_list, round_no=round_no,
                                 max_seconds=seconds, markers=markers)
        renderer = RoundRenderer(log, settings)
        with Progress(TextColumn("rendering"), BarColumn(), TextColumn("{task.completed} "
                      "frames"), TimeRemainingColumn(), console=err) as bar:
            task = bar.add_task("render", total=None)
            summary = render_video(log, out_path, settings,
                                   progress=lambda n, total: bar.update(task, completed=n,
                                                                        total=total),
                                   renderer=renderer)
    except (RenderError, CameraError, SceneError, DeckError) as exc:
        raise _fail(str(exc)) from None
    err.print(f"wrote {summary['frames']} frames ({summary['seconds']:.1f} s) to "
              f"{summary['video']} and labels to {summary['labels']}", highlight=False)


def _render_stills(out_path: Path, players: int, count: int, seed: int, size: tuple[int, int],
                   split: str, decks: tuple[str, ...] | None, backs: tuple[str, ...] | None,
                   cam: object | None, markers: bool) -> None:
    import cv2

    from vision.render.scene import random_table, render_still

    if not 2 <= players <= 8:
        raise _fail(f"--players must be 2 to 8, got {players}")
    if count < 1:
        raise _fail("--count must be at least 1")
    out_path.parent.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        s = seed + i
        scene = render_still(random_table(players, s), s, size=size, split=split,
                             decks=decks, backs=backs, camera=cam, markers=markers)
        path = out_path if count == 1 else out_path.with_name(
            f"{out_path.stem}-{i:04d}{out_path.suffix or '.png'}")
        if not cv2.imwrite(str(path), scene.image):
            raise _fail(f"cannot write {path}")
        path.with_suffix(".labels.json").write_text(json.dumps(scene.labels()))
    err.print(f"wrote {count} scene(s) to {out_path.parent}", highlight=False)


@app.command()
def detect(
    images: Annotated[list[Path], typer.Argument(help="image files (any camera, any size)")],
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object per image")] = True,
    models: Annotated[Path | None, typer.Option(help="folder with the ONNX models")] = None,
) -> None:
    """Find every card in photos: face-up cards with their code, backs. Prints one JSON
    object per image and line (DESIGN.md); unreadable files are reported on stderr and the
    others still processed (exit 1 if any failed)."""
    import cv2

    from vision.detector import CardDetector, ModelError

    try:
        detector = CardDetector.load(models)
    except ModelError as exc:
        raise _fail(str(exc)) from None
    failed = 0
    for path in images:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
        if image is None:
            err.print(f"{path}: not a readable image", highlight=False)
            failed += 1
            continue
        cards = detector(image)
        h, w = image.shape[:2]
        if as_json:
            sys.stdout.write(cards.to_json(str(path), w, h) + "\n")
        else:
            out.print(f"{path}: " + ", ".join(str(c) for c in cards.code), highlight=False)
    if failed:
        raise typer.Exit(1)


@app.command()
def markers(
    out_path: Annotated[Path, typer.Option("--out", "-o", help="markers.pdf or markers.png")
                        ] = Path("markers.pdf"),
    dpi: Annotated[int, typer.Option(help="print resolution")] = 150,
) -> None:
    """Write the four printable ArUco table markers (A4, true size) with where to put them."""
    from vision.calibration import marker_page

    try:
        marker_page(out_path, dpi)
    except (ValueError, OSError) as exc:
        raise _fail(str(exc)) from None
    err.print(f"wrote {out_path}: print at 100 %, tape ids 0-3 clockwise from the top-left "
              "table corner (seen from seat 0)", highlight=False)


@app.command()
def calibrate(
    out_path: Annotated[Path, typer.Option("--out", "-o", help="table profile (.toml)")
                        ] = Path("table.toml"),
    seats: Annotated[int, typer.Option("--seats", "-n", help="2 to 8 seats")] = 4,
    shape: Annotated[str, typer.Option(help="rect or round")] = "rect",
    size: Annotated[str, typer.Option(help="table WIDTHxDEPTH in mm (round: the diameter)")
                    ] = "1400x900",
    corners: Annotated[str | None, typer.Option(
        help="four table corners in image pixels 'x,y;x,y;x,y;x,y' (top-left, top-right, "
             "bottom-right, bottom-left seen from seat 0); without: ArUco markers")] = None,
    image: Annotated[Path | None, typer.Option(help="a frame of the camera: checks that "
                                               "the markers are in view")] = None,
    preset: Annotated[str, typer.Option(help="house-rule preset")] = "nertz",
) -> None:
    """Write a table profile: seats proposed from the seat count and table shape, the
    camera calibrated from four given corners or from the ArUco markers."""
    from vision.profile import make_profile

    try:
        summary = make_profile(out_path, seats, shape, size, corners, image, preset)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    err.print(summary, highlight=False)


@app.command()
def serve(
    db: Annotated[Path, typer.Option(help="SQLite database (created if new)")] = Path("nertz.db"),
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port")] = 8000,
    camera: Annotated[int | None, typer.Option(help="allow rounds from this local camera")
                      ] = None,
    max_upload_mb: Annotated[int, typer.Option(help="largest upload, in MB")] = 512,
    sync: Annotated[str, typer.Option(help="SQLite synchronous: normal (survives a crash "
                                      "of the server) or full (also a power cut)")
                    ] = "normal",
) -> None:
    """Run the referee service: REST + WebSocket API, the web pages at /, docs at /docs."""
    import uvicorn

    from referee.service import create_app
    from referee.store import StoreError

    try:
        web = create_app(db, camera=camera, max_upload=max_upload_mb * 1024 * 1024,
                         synchronous=sync)
    except (StoreError, OSError) as exc:
        raise _fail(f"cannot open {db}: {exc}") from None
    err.print(f"nertz referee on http://{host}:{port}/ (database {db})", highlight=False)
    uvicorn.run(web, host=host, port=port, log_level="warning")


@app.command()
def live(
    camera: Annotated[int | None, typer.Option(help="camera index (0: the first webcam)")
                      ] = None,
    video: Annotated[Path | None, typer.Option(help="a video file, played as if live")] = None,
    profile: Annotated[Path | None, typer.Option(help="table profile (nertz calibrate)")
                       ] = None,
    oracle: Annotated[Path | None, typer.Option(
        help="--video: render labels (*.labels.jsonl) instead of the detector")] = None,
    players: Annotated[int, typer.Option(help="--oracle: number of seats")] = 2,
    preset: Annotated[str, typer.Option(help="--oracle: house-rule preset")] = "nertz",
    db: Annotated[Path, typer.Option(help="SQLite database the round is recorded in")
                  ] = Path("nertz.db"),
    speed: Annotated[float, typer.Option(help="--video: playing speed (0: as fast as "
                                         "possible)")] = 1.0,
) -> None:
    """Referee a table live in the terminal: scoreboard, events, keys 1-8 call Nertz! for a
    seat, q stops. Every event is recorded in --db (nertz serve shows it afterwards)."""
    from rich.live import Live

    from referee.live import SourceError
    from referee.store import StoreError
    from referee.terminal import LiveError, LiveSession, keys, open_capture, run

    if (camera is None) == (video is None):
        raise _fail("give one of --camera N or --video FILE")
    if oracle is None and profile is None:
        raise _fail("give --profile table.toml (nertz calibrate), or --oracle labels.jsonl "
                    "with --video")
    if oracle is not None and video is None:
        raise _fail("--oracle goes with --video (render labels of that video)")
    try:
        if oracle is not None:
            rules, seats = _rules(preset, None, []), players
        else:
            from vision.profile import TableProfile

            prof = TableProfile.load(profile)  # type: ignore[arg-type]
            rules = HouseRules.from_dict({**HouseRules.preset(prof.preset).to_dict(),
                                          **prof.options})
            seats = len(prof.seats)
        target: str | int = camera if camera is not None else str(video)
        cap = open_capture(target)
        source = ({"kind": "camera", "index": camera} if camera is not None
                  else {"kind": "video", "path": str(video)})
        session = LiveSession(db, seats, rules, source, profile=profile, labels=oracle,
                              keep_frames=camera is not None)
    except (LiveError, SourceError, StoreError, ValueError, OSError) as exc:
        raise _fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, 1) from None
    name = f"camera {camera}" if camera is not None else f"video {video}"
    try:
        with keys() as pressed, Live(console=err, auto_refresh=False) as screen:
            why = run(session, cap, camera is not None, speed, pressed,
                      lambda view: screen.update(view, refresh=True), name)
    except LiveError as exc:
        raise _fail(str(exc), 1) from None
    score = session.engine.score()
    err.print(f"{why}: scores {score.get('scores')}; {session.recorded} event(s) in {db} "
              f"(table {session.table_id}, round {session.round_id})", highlight=False)


@app.command("replay")
def replay_cmd(
    video: Annotated[Path, typer.Argument(help="recorded video (any format OpenCV reads)")],
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="output folder")] = Path(
        "replay"),
    profile: Annotated[Path | None, typer.Option(help="table profile (TOML)")] = None,
    calls: Annotated[Path | None, typer.Option(help="calls, JSON Lines {seat, t_ms}")] = None,
    oracle: Annotated[Path | None, typer.Option(
        help="render labels (*.labels.jsonl) instead of the detector: measures the tracker")
    ] = None,
    players: Annotated[int, typer.Option(help="--oracle: number of seats")] = 4,
    preset: Annotated[str, typer.Option(help="--oracle: house-rule preset")] = "nertz",
    observe_fps: Annotated[float | None, typer.Option(
        "--observe-fps", help="frames a second the tracker looks at; the others are skipped "
        "undecoded (default: 10 with --profile, every frame with --oracle; 0: every frame)")
    ] = None,
    every_frame: Annotated[bool, typer.Option(
        "--every-frame", help="--profile: run the detector on every observed frame instead "
        "of only where the picture changed (slow; for comparison)")] = False,
    full_every: Annotated[float, typer.Option(
        "--full-every", help="--profile: seconds between safety-net full-frame detections "
        "(0: only at the start and after large changes)")] = 10.0,
) -> None:
    """Referee a recorded round: events.jsonl, report.json and report.html in --out."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from referee.replay import ReplayError, oracle_observer, pipeline_observer, read_calls
    from referee.replay import replay_video as run_replay

    try:
        if oracle is not None:
            observer, rules, seats = oracle_observer(oracle), _rules(preset, None, []), players
        elif profile is not None:
            observer = pipeline_observer(profile, every_frame=every_frame,
                                         full_every_ms=1000.0 * full_every)
            model = observer.model  # type: ignore[attr-defined]
            rules, seats = model.rules, len(model.seats)
        else:
            raise _fail("give --profile table.toml (or --oracle labels.jsonl)")
        call_list = read_calls(calls) if calls else None
        with Progress(TextColumn("replaying"), BarColumn(), TextColumn("{task.completed} "
                      "frames"), TimeRemainingColumn(), console=err) as bar:
            task = bar.add_task("replay", total=None)
            report = run_replay(video, out_dir, observer, rules, seats, call_list,
                                progress=lambda n, total: bar.update(
                                    task, completed=n, total=total or None),
                                observe_fps=observe_fps)
    except ReplayError as exc:
        raise _fail(str(exc), 1) from None
    score = report.get("score") or {}
    err.print(f"wrote {out_dir}/events.jsonl, report.json, report.html: scores "
              f"{score.get('scores')}, {len(report.get('flags', []))} flag(s)", highlight=False)
    if not report.get("dealt") and report.get("note"):
        err.print(f"note: {report['note']}", highlight=False)
    if report.get("frames_failed") and not report.get("error"):
        err.print(f"note: {report['frames_failed']} frame(s) could not be looked at and were "
                  f"skipped (the first: {report['failures'][0]})", highlight=False)
    if report.get("error"):
        raise _fail(report["error"], 1)


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
