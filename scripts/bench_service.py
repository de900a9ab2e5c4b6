"""Load benchmark of the referee service: N tables at once, each playing a simulated round
from its event log as if live, against a real uvicorn server on 127.0.0.1.

Prints, per table and overall: events committed and announced per second with the sources
at full speed (``--speed 0``), and at ``--live-speed`` times real time the event latency
(announcement on the WebSocket minus the moment the event was due) and the latency of a
"Nertz!" call (POST to its answer).

With ``--video``, every table plays the bundled demo video (``nertz demo``'s 61 s round,
384×216 at 10 fps) as a live video source through the vision pipeline, observations from its
render labels (the oracle path; the detector is not part of this figure): frames per second
held per table at real time (10 wanted) and flat out, and the event latency (announced on
the WebSocket minus the moment its frame was due).

    python -m scripts.bench_service --tables 8 [--video]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from websockets.sync.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.referee.service_helpers import Server, auth, make_table  # noqa: E402


def _watch(ws_url: str, tid: int, out: dict, ready: threading.Event) -> None:
    arrivals: list[tuple[float, dict]] = []
    with connect(f"{ws_url}/api/tables/{tid}/ws", open_timeout=10, max_size=None) as ws:
        json.loads(ws.recv(timeout=10))
        ready.set()
        while True:
            msg = json.loads(ws.recv(timeout=120))
            if msg["kind"] == "event":
                arrivals.append((time.perf_counter(), msg))
            if msg["kind"] == "round_end":
                break
    out["arrivals"] = arrivals


def run(server: Server, tables: int, speed: float, seed: int, call: bool) -> dict:
    with server.client() as c:
        made = [make_table(c) for _ in range(tables)]
        results: list[dict] = [{} for _ in made]
        threads, starts = [], []
        for (tid, _tok, _s), out in zip(made, results, strict=True):
            ready = threading.Event()
            th = threading.Thread(target=_watch, args=(server.ws_url, tid, out, ready))
            th.start()
            ready.wait(10)
            threads.append(th)
        for k, (tid, tok, _s) in enumerate(made):
            t0 = time.perf_counter()
            r = c.post(f"/api/tables/{tid}/rounds", headers=auth(tok), json={
                "kind": "simulate", "seed": seed + k, "mistakes": 0.05, "speed": speed})
            r.raise_for_status()
            starts.append((t0 + time.perf_counter()) / 2)
            results[k]["round"] = r.json()["id"]
        call_lat = []
        if call:
            time.sleep(1.0)
            for _k, (_tid, tok, _s) in enumerate(made):
                t0 = time.perf_counter()
                r = c.post(f"/api/rounds/{results[_k]['round']}/calls", json={"seat": 1},
                           headers=auth(tok))
                if r.status_code == 200:
                    call_lat.append(time.perf_counter() - t0)
        for th in threads:
            th.join(180)
    per_table = []
    lat = []
    for start, out in zip(starts, results, strict=True):
        arr = out.get("arrivals", [])
        if not arr:
            continue
        span = arr[-1][0] - start
        per_table.append(len(arr) / span if span > 0 else float("nan"))
        if speed > 0:
            for t, msg in arr:
                due = start + msg["event"]["t_ms"] / 1000 / speed
                if msg["event"]["type"] not in ("round_start", "deal", "call", "flag",
                                                 "round_end"):
                    lat.append(t - due)
    return {"events_per_s": per_table, "latency": lat, "call_latency": call_lat,
            "events": sum(len(o.get("arrivals", [])) for o in results)}


def run_video(server: Server, tables: int, speed: float, real: bool = False) -> dict:
    """``tables`` tables each playing the demo video at ``speed`` (0: flat out): with its
    labels (the oracle path), or with ``real`` the 1280×720 copy through the card detector
    and table model; frames per second per table, event latencies (s)."""
    import gzip

    from referee.demo import demo_files, demo_profile_toml, real_path_files

    files = demo_files()
    if real:
        hd = real_path_files()
        if hd is None:
            raise SystemExit("the 1280x720 demo copy is not there (scripts.make_demo)")
        files.update(hd)
    with server.client() as c:
        video = c.post("/api/uploads", content=files["video"].read_bytes()).json()["id"]
        labels = None if real else c.post("/api/uploads", content=gzip.decompress(
            files["labels"].read_bytes())).json()["id"]
        made = [make_table(c, seats=2) for _ in range(tables)]
        if real:
            profile = demo_profile_toml(files["labels"])
            for tid, tok, _s in made:
                c.put(f"/api/tables/{tid}/profile", json={"toml": profile},
                      headers=auth(tok)).raise_for_status()
        results: list[dict] = [{} for _ in made]
        threads, starts = [], []
        for (tid, _tok, _s), out in zip(made, results, strict=True):
            ready = threading.Event()
            th = threading.Thread(target=_watch, args=(server.ws_url, tid, out, ready))
            th.start()
            ready.wait(10)
            threads.append(th)
        for k, (tid, tok, _s) in enumerate(made):
            source = {"kind": "video", "upload_id": video, "speed": speed}
            if labels is not None:
                source["labels_upload_id"] = labels
            r = c.post(f"/api/tables/{tid}/rounds", headers=auth(tok), json=source)
            r.raise_for_status()
            starts.append(time.perf_counter())
            results[k]["round"] = r.json()["id"]
        for th in threads:
            th.join(600)
        fps_held, lat, events = [], [], 0
        for start, out in zip(starts, results, strict=True):
            arr = out.get("arrivals", [])
            rnd = c.get(f"/api/rounds/{out['round']}").json()
            if not arr:
                continue
            events += len(arr)
            fps_held.append((rnd.get("source_pos") or 0) / (arr[-1][0] - start))
            if speed > 0:
                for t, msg in arr:
                    frame = msg["event"].get("frame")
                    if isinstance(frame, int) and msg["event"]["type"] != "round_end":
                        lat.append(t - (start + (frame + 1) / 10.0 / speed))
    return {"fps": fps_held, "latency": lat, "events": events}


def _video_main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "bench.db", sync=args.sync, max_upload=50_000_000).start()
        try:
            flat = run_video(server, args.tables, 0, args.real)
            real = run_video(server, args.tables, 1.0, args.real)
        finally:
            server.stop()
    f = flat["fps"]
    what = ("the 1280x720 demo video through the real pipeline" if args.real else
            "the demo video (oracle observations)")
    print(f"{args.tables} tables from {what}, flat out: per table "
          f"{min(f):.1f}-{max(f):.1f} frames/s (together {sum(f):.0f}); "
          f"{flat['events']} events")
    f = real["fps"]
    lat = sorted(real["latency"])
    print(f"{args.tables} tables at real time (10 frames/s wanted): per table "
          f"{min(f):.1f}-{max(f):.1f} frames/s held; {real['events']} events")
    if lat:
        print(f"event latency (frame due -> announced): median "
              f"{lat[len(lat) // 2] * 1000:.0f} ms, p95 {lat[int(len(lat) * 0.95)] * 1000:.0f} "
              f"ms, max {lat[-1] * 1000:.0f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=8)
    ap.add_argument("--live-speed", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=100)
    ap.add_argument("--sync", default="NORMAL", help="SQLite synchronous: NORMAL or FULL")
    ap.add_argument("--video", action="store_true",
                    help="video sources (the demo video through the vision pipeline)")
    ap.add_argument("--real", action="store_true",
                    help="with --video: the 1280x720 copy through the card detector and "
                         "table model (no labels)")
    args = ap.parse_args()
    if args.video:
        _video_main(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "bench.db", sync=args.sync).start()
        try:
            fast = run(server, args.tables, 0, args.seed, call=False)
            live = run(server, args.tables, args.live_speed, args.seed + 50, call=True)
        finally:
            server.stop()
    eps = fast["events_per_s"]
    print(f"synchronous={args.sync}")
    print(f"{args.tables} tables at full speed: {fast['events']} events; per table "
          f"{min(eps):.0f}-{max(eps):.0f} events/s (median {statistics.median(eps):.0f}), "
          f"together {sum(eps):.0f} events/s")
    lat = sorted(live["latency"])
    if lat:
        p50 = lat[len(lat) // 2] * 1000
        p95 = lat[int(len(lat) * 0.95)] * 1000
        print(f"{args.tables} tables at {args.live_speed:g}x real time: {live['events']} "
              f"events; event latency (due -> announced) median {p50:.1f} ms, "
              f"p95 {p95:.1f} ms, max {lat[-1] * 1000:.1f} ms")
    if live["call_latency"]:
        cl = sorted(live["call_latency"])
        print(f"call latency (POST -> answered, committed): median "
              f"{cl[len(cl) // 2] * 1000:.1f} ms, max {cl[-1] * 1000:.1f} ms")


if __name__ == "__main__":
    try:
        main()
    except httpx.HTTPError as exc:
        sys.exit(f"bench_service: {exc}")
