"""The referee service against a real uvicorn server on 127.0.0.1: REST, WebSocket, auth,
bad input, corrections, replay jobs, and a kill -9 crash test."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from rules import HouseRules
from rules.log import replay
from rules.simulator import simulate_round

from .service_helpers import Server, auth, jsonl, make_table, wait_round


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("svc") / "nertz.db", max_upload=200_000).start()
    yield srv
    srv.stop()


@pytest.fixture
def c(server: Server) -> Iterator[httpx.Client]:
    with server.client() as client:
        yield client


def test_simulated_round_is_scored_like_the_rules(c: httpx.Client, tmp_path: Path) -> None:
    tid, token, _ = make_table(c)
    r = c.post(f"/api/tables/{tid}/rounds", headers=auth(token),
               json={"kind": "simulate", "seed": 3, "mistakes": 0.1, "speed": 0})
    assert r.status_code == 201, r.text
    rnd = wait_round(c, r.json()["id"])
    truth = simulate_round(4, HouseRules.preset("nertz"), 3, 0.1, 1)
    assert rnd["score"]["scores"] == truth[-1]["scores"]
    log = tmp_path / "round.jsonl"
    log.write_text(c.get(f"/api/rounds/{rnd['id']}/log.jsonl").text)
    result = replay(log)
    assert result.consistent and result.rounds[0].score.scores == truth[-1]["scores"]
    flags = c.get(f"/api/rounds/{rnd['id']}/flags").json()
    assert len(flags) == len(result.rounds[0].flags)
    st = c.get(f"/api/tables/{tid}/standings").json()
    assert st["rounds"] == 1 and st["totals"] == truth[-1]["scores"]


def test_tokens_guard_changes_and_calls(c: httpx.Client) -> None:
    tid, token, seats = make_table(c, seats=3)
    assert c.put(f"/api/tables/{tid}/rules", json={"preset": "pounce"}).status_code == 403
    assert c.put(f"/api/tables/{tid}/rules", json={"preset": "pounce"},
                 headers=auth("wrong")).status_code == 403
    r = c.put(f"/api/tables/{tid}/rules", json={"preset": "pounce"}, headers=auth(token))
    assert r.status_code == 200 and r.json()["rules"]["preset"] == "pounce"
    rid = c.post(f"/api/tables/{tid}/rounds", headers=auth(token),
                 json={"kind": "events"}).json()["id"]
    deals = simulate_round(3, HouseRules.preset("pounce"), 5)[:4]
    r = c.post(f"/api/rounds/{rid}/events", content=jsonl(deals), headers=auth(token))
    assert r.status_code == 200 and r.json()["problems"] == []
    # a player may call for their own seat only
    assert c.post(f"/api/rounds/{rid}/calls", json={"seat": 2},
                  headers=auth(seats[1])).status_code == 403
    r = c.post(f"/api/rounds/{rid}/calls", json={"seat": 1}, headers=auth(seats[1]))
    assert r.status_code == 200
    call = r.json()["events"][0]["event"]
    assert call["type"] == "call" and call["valid"] is False
    assert r.json()["events"][1]["event"]["rule"] == "false_call"
    # only the token holder ends the round
    assert c.post(f"/api/rounds/{rid}/end", json={"reason": "stall"},
                  headers=auth(seats[0])).status_code == 403
    r = c.post(f"/api/rounds/{rid}/end", json={"reason": "stall"}, headers=auth(token))
    assert r.status_code == 200 and r.json()["score"]["false_calls"] == [0, 1, 0]
    assert c.post(f"/api/rounds/{rid}/calls", json={"seat": 1},
                  headers=auth(token)).status_code == 409


@pytest.mark.parametrize("method,path,body", [
    ("post", "/api/tables", {"seats": 9}),
    ("post", "/api/tables", {"seats": 4, "preset": "nope"}),
    ("post", "/api/tables", {"seats": 4, "options": {"draw": "many"}}),
    ("post", "/api/tables", {"seats": 2, "players": ["a", "b", "c"]}),
    ("get", "/api/tables/999", None),
    ("get", "/api/rounds/999/events", None),
    ("post", "/api/replays", {"upload_id": "../../etc/passwd"}),
    ("get", "/api/replays/nope", None),
])
def test_bad_input_gets_a_one_line_4xx(c: httpx.Client, method: str, path: str,
                                       body: dict | None) -> None:
    r = c.request(method, path, json=body)
    assert 400 <= r.status_code < 500, r.text
    detail = r.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and detail


def test_bad_round_sources(c: httpx.Client) -> None:
    tid, token, _ = make_table(c)
    for body in ({"kind": "log"}, {"kind": "video", "upload_id": "x"}, {"kind": "camera"},
                 {"kind": "simulate", "speed": -1}, {"kind": "teleport"}):
        r = c.post(f"/api/tables/{tid}/rounds", json=body, headers=auth(token))
        assert 400 <= r.status_code < 500, (body, r.text)
    assert c.get(f"/api/tables/{tid}").json()["running_round"] is None


def test_uploads_are_checked_by_content_and_size(c: httpx.Client, server: Server) -> None:
    r = c.post("/api/uploads", content=b"MZ\x90\x00 not a log", headers={
        "X-Filename": "round.jsonl"})
    assert r.status_code == 415
    r = c.post("/api/uploads", content=b"x" * 300_000)
    assert r.status_code == 413
    events = simulate_round(2, HouseRules(), 1)
    r = c.post("/api/uploads", content=jsonl(events), headers={"X-Filename": "../../evil.sh"})
    assert r.status_code == 201
    up = r.json()
    assert up["kind"] == "log" and "/" not in up["display_name"]
    files = [p.name for p in (Path(f"{server.db}.files") / "uploads").iterdir()]
    assert f"{up['id']}.jsonl" in files and not any("evil" in f for f in files)
    assert not any(f.endswith(".part") for f in files)
    # a replay job of the log: progress, then the report
    job = c.post("/api/replays", json={"upload_id": up["id"]}).json()
    for _ in range(100):
        job = c.get(f"/api/replays/{job['id']}").json()
        if job["status"] in ("done", "failed"):
            break
        time.sleep(0.05)
    assert job["status"] == "done", job
    report = c.get(f"/api/replays/{job['id']}/report").json()
    assert report["rounds"][0]["scores"] == events[-1]["scores"] and report["consistent"]
    assert "Nertz report" in c.get(f"/api/replays/{job['id']}/report.html").text
    # and as a live source
    tid, token, _ = make_table(c, seats=2)
    rid = c.post(f"/api/tables/{tid}/rounds", headers=auth(token),
                 json={"kind": "log", "upload_id": up["id"], "speed": 0}).json()["id"]
    assert wait_round(c, rid)["score"]["scores"] == events[-1]["scores"]


def test_websocket_streams_events_scores_and_the_end(c: httpx.Client, server: Server) -> None:
    tid, token, _ = make_table(c)
    seen: list[dict] = []
    with connect(f"{server.ws_url}/api/tables/{tid}/ws", open_timeout=5) as ws:
        hello = json.loads(ws.recv(timeout=5))
        assert hello["kind"] == "hello" and hello["round"] is None
        rid = c.post(f"/api/tables/{tid}/rounds", headers=auth(token),
                     json={"kind": "simulate", "seed": 1, "mistakes": 0.1,
                           "speed": 200}).json()["id"]
        while True:
            msg = json.loads(ws.recv(timeout=20))
            seen.append(msg)
            if msg["kind"] == "round_end":
                break
    kinds = {m["kind"] for m in seen}
    assert {"round_start", "event", "scores", "round_end"} <= kinds
    events = [m for m in seen if m["kind"] == "event"]
    assert [m["seq"] for m in events] == list(range(1, len(events) + 1))
    assert any(m["event"]["type"] == "flag" for m in events)
    recorded = c.get(f"/api/rounds/{rid}/recorded").json()
    assert [r["event"] for r in recorded] == [m["event"] for m in events]
    assert seen[-1]["standings"]["rounds"] == 1


def test_corrections_recompute_scores_and_keep_an_audit(c: httpx.Client) -> None:
    tid, token, seats = make_table(c, seats=2)
    rid = c.post(f"/api/tables/{tid}/rounds", headers=auth(token),
                 json={"kind": "events"}).json()["id"]
    c.post(f"/api/rounds/{rid}/events", headers=auth(token),
           content=jsonl(simulate_round(2, HouseRules(), 4)[:3]))
    call = c.post(f"/api/rounds/{rid}/calls", json={"seat": 0}, headers=auth(seats[0])).json()
    seq = call["events"][0]["seq"]
    before = call["score"]
    assert before["false_calls"] == [1, 0]
    body = {"changes": [{"seq": seq, "action": "delete"}], "who": "ann",
            "why": "a bump, not a call"}
    assert c.post(f"/api/rounds/{rid}/corrections", json=body).status_code == 403
    r = c.post(f"/api/rounds/{rid}/corrections", json=body, headers=auth(token))
    assert r.status_code == 200, r.text
    after = r.json()["scores_after"]
    assert after["false_calls"] == [0, 0]
    assert after["scores"][0] == before["scores"][0] + 5
    audit = c.get(f"/api/rounds/{rid}/corrections").json()
    assert audit[0]["who"] == "ann" and audit[0]["previous"]["type"] == "call"
    # the recorded log itself is untouched; the corrected view has no false call
    assert any(x["seq"] == seq for x in c.get(f"/api/rounds/{rid}/recorded").json())
    assert not any(x["event"]["type"] == "flag" for x in
                   c.get(f"/api/rounds/{rid}/events").json())
    assert c.get(f"/api/rounds/{rid}/scores").json()["score"] == after
    # a flag is derived: it cannot be corrected itself
    flag_seq = call["events"][1]["seq"]
    r = c.post(f"/api/rounds/{rid}/corrections", headers=auth(token),
               json={**body, "changes": [{"seq": flag_seq, "action": "delete"}]})
    assert r.status_code in (404, 422)
    # the live engine follows the correction: a new call is scored from the corrected state
    r = c.post(f"/api/rounds/{rid}/end", json={"reason": "stall"}, headers=auth(token))
    assert r.json()["score"]["false_calls"] == [0, 0]


def test_correcting_a_flagged_move_with_its_take_back(c: httpx.Client) -> None:
    tid, token, _ = make_table(c)
    rid = c.post(f"/api/tables/{tid}/rounds", headers=auth(token),
                 json={"kind": "simulate", "seed": 1, "mistakes": 0.1, "speed": 0}).json()["id"]
    wait_round(c, rid)
    flags = c.get(f"/api/rounds/{rid}/flags").json()
    rows = c.get(f"/api/rounds/{rid}/events").json()
    for f in flags:
        if not f["event"] or f["event"]["type"] != "move":
            continue
        move = f["event"]
        back = next((r for r in rows if r["event"]["type"] == "retract"
                     and r["event"]["card"] == move["card"] and r["seq"] > f["seq"]), None)
        if back is None:
            continue
        changes = [{"seq": f["seq"], "action": "delete"},
                   {"seq": back["seq"], "action": "delete"}]
        r = c.post(f"/api/rounds/{rid}/corrections", headers=auth(token),
                   json={"changes": changes, "who": "ref", "why": "misread"})
        if r.status_code == 422:  # it started a foundation: later indices would shift
            assert "impossible" in r.json()["detail"]
            continue
        assert r.status_code == 200, r.text
        assert len(c.get(f"/api/rounds/{rid}/flags").json()) == len(flags) - 1
        return
    pytest.skip("no corrected misplacement in this round")


def test_openapi_and_pages_are_served(c: httpx.Client) -> None:
    schema = c.get("/openapi.json").json()
    assert "/api/rounds/{round_id}/calls" in schema["paths"]
    assert c.get("/docs").status_code == 200
    for page in ("/", "/live", "/setup", "/review", "/static/common.js"):
        assert c.get(page).status_code == 200, page


def test_kill_9_loses_no_acknowledged_event(tmp_path: Path) -> None:
    srv = Server(tmp_path / "crash.db").start()
    try:
        with srv.client() as c:
            tid, token, _ = make_table(c)
            rid = c.post(f"/api/tables/{tid}/rounds", headers=auth(token),
                         json={"kind": "simulate", "seed": 9, "mistakes": 0.1,
                               "speed": 25}).json()["id"]
            acked: dict[int, dict] = {}
            with connect(f"{srv.ws_url}/api/tables/{tid}/ws", open_timeout=5) as ws:
                json.loads(ws.recv(timeout=5))
                while len(acked) < 60:
                    msg = json.loads(ws.recv(timeout=10))
                    if msg["kind"] == "event":
                        acked[msg["seq"]] = msg["event"]
                srv.kill9()
        srv.start()
        with srv.client() as c:
            recorded = {r["seq"]: r["event"] for r in
                        c.get(f"/api/rounds/{rid}/recorded").json()}
            for seq, event in acked.items():
                assert recorded.get(seq) == event, seq
            # the round goes on from its log and ends as the simulator's round does
            rnd = wait_round(c, rid, timeout=60)
            truth = simulate_round(4, HouseRules.preset("nertz"), 9, 0.1, 1)
            assert rnd["score"]["scores"] == truth[-1]["scores"]
            seqs = [r["seq"] for r in c.get(f"/api/rounds/{rid}/recorded").json()]
            assert seqs == list(range(1, len(seqs) + 1))
    finally:
        srv.stop()
