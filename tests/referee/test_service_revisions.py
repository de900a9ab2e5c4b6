"""A live vision round whose tracker rewrites its history after announcing it: the stored
events get corrections by "tracker" (the corrected log tells what the tracker settled on,
the recorded one keeps what was announced), on a real uvicorn server with a real SQLite
file and a real video file through OpenCV; and the diff itself on plain events."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.live import revisions

from ..vision.test_tracker import _ace_left_unseen_frames
from .service_helpers import Server, start_video_round, wait_round


def test_revisions_replace_renumbered_and_renamed_moves_delete_dropped_ones_add_new():
    stored = [
        (1, {"type": "round_start", "t_ms": 0}),
        (2, {"type": "move", "t_ms": 100, "seat": 1, "card": "AH", "from": "seat1:nertz",
             "to": "lake:0", "n": 1}),
        (3, {"type": "move", "t_ms": 200, "seat": 0, "card": "2D", "from": "seat0:waste",
             "to": "lake:1", "n": 1}),
        (4, {"type": "flag", "t_ms": 200, "seat": 0, "rule": "foundation_needs_ace",
             "card": "2D", "place": "lake:1"}),
        (5, {"type": "move", "t_ms": 300, "seat": 0, "card": "3C", "from": "seat0:waste",
             "to": "lake:2", "n": 1}),
        (6, {"type": "move", "t_ms": 400, "seat": 1, "card": "9S", "from": "seat1:waste",
             "to": "lake:3", "n": 1}),
        (7, {"type": "draw", "t_ms": 450, "seat": 0, "cards": ["4C"]}),
    ]
    final = [
        {"type": "round_start", "t_ms": 0},
        {"type": "move", "t_ms": 90, "seat": 0, "card": "AD", "from": "seat0:waste",
         "to": "lake:0", "n": 1, "inferred": True},
        {"type": "move", "t_ms": 100, "seat": 1, "card": "AH", "from": "seat1:nertz",
         "to": "lake:1", "n": 1},
        {"type": "move", "t_ms": 200, "seat": 0, "card": "2D", "from": "seat0:waste",
         "to": "lake:0", "n": 1},
        {"type": "move", "t_ms": 300, "seat": 0, "card": "3S", "from": "seat0:waste",
         "to": "lake:2", "n": 1},
        {"type": "draw", "t_ms": 450, "seat": 0, "cards": ["4S"]},
    ]
    fixes, new = revisions(stored, final)
    assert [(seq, action) for seq, action, _e in fixes] == [
        (2, "replace"), (3, "replace"), (4, "delete"), (5, "replace"), (6, "delete")]
    replaced = {seq: e for seq, action, e in fixes if action == "replace"}
    assert replaced[2]["to"] == "lake:1" and replaced[3]["to"] == "lake:0"
    assert replaced[5]["card"] == "3S" and replaced[5]["t_ms"] == 300
    assert [(e["card"], e["to"]) for e in new] == [("AD", "lake:0")]
    # nothing revised: nothing to do (draws and other types are left alone)
    assert revisions([(1, final[1]), (2, final[2])], final[:3]) == ([], [])
    # a person corrected seq 2 (the AH's move): it is never revised, and it stands for the
    # tracker's AH move (not appended again)
    fixes, new = revisions([q for q in stored if q[0] != 2], final, settled=[stored[1][1]])
    assert 2 not in [seq for seq, _a, _e in fixes]
    assert [(e["card"], e["to"]) for e in new] == [("AD", "lake:0")]


def _frames() -> list[dict[str, list[str]]]:
    """Seat 0's waste shows AD on top, then a new fan topped by 2D (the AD left unseen);
    seat 1's AH starts a pile; seat 0's 2D starts another (flagged: a pile needs its Ace)
    and its 3D lands on the 2D: the tracker then puts the AD under the 2D, and the AH's
    pile, announced as lake:0, becomes lake:1."""
    return _ace_left_unseen_frames(between=True)


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A 10 fps video of plain frames and render-style labels of the script above (each
    place's cards in plain view, one box each)."""
    work = tmp_path_factory.mktemp("revise")
    frames = _frames()
    video = work / "round.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (160, 120))
    for n in range(len(frames)):
        writer.write(np.full((120, 160, 3), 40 + n % 50, np.uint8))
    writer.release()
    lines = [{"type": "header", "width": 160, "height": 120, "fps": 10.0}]
    for n, places in enumerate(frames):
        cards = []
        for p, (place, codes) in enumerate(sorted(places.items())):
            for depth, code in enumerate(codes):
                box = [float(p * 4), 0.0, float(p * 4 + 3), 5.0]
                cards.append({"code": code, "place": place, "box": box, "depth": depth,
                              "face_up": code != "back", "visible": 1.0,
                              "indices": [{"visible": 1.0}]})
        lines.append({"frame": n, "t_ms": n * 100.0, "cards": cards, "hands": []})
    labels = work / "round.labels.jsonl"
    labels.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return video, labels


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("revise-db") / "nertz.db").start()
    yield srv
    srv.stop()


def test_a_live_round_stores_the_trackers_revised_history_as_corrections(
        server: Server, clip: tuple[Path, Path]) -> None:
    video, labels = clip
    with server.client() as c:
        rid, _v, _l = start_video_round(c, video, labels)
        rnd = wait_round(c, rid, timeout=60)
        recorded = [x["event"] for x in c.get(f"/api/rounds/{rid}/recorded").json()]
        # as announced live: the AH's pile was lake:0 and the 2D started a pile, flagged
        said = [(e["card"], e["to"]) for e in recorded if e["type"] == "move"]
        assert ("AH", "lake:0") in said and ("2D", "lake:1") in said
        assert any(e["type"] == "flag" and e["card"] == "2D" for e in recorded)
        # the corrected log: what the tracker settled on
        log = [json.loads(x) for x in c.get(f"/api/rounds/{rid}/log.jsonl").text.splitlines()]
        moves = [(e["card"], e["to"]) for e in log if e["type"] == "move"]
        assert sorted(moves) == sorted([("AD", "lake:0"), ("AH", "lake:1"), ("2D", "lake:0"),
                                        ("3D", "lake:0")])
        assert not [e for e in log if e["type"] == "flag"]
        fixes = c.get(f"/api/rounds/{rid}/corrections").json()
        assert fixes and {f["who"] for f in fixes} == {"tracker"}
        assert {f["action"] for f in fixes} == {"replace", "delete"}
        assert rnd["score"]["lake_cards"] == [3, 1]
        assert recorded[-1]["type"] == "round_end"


def test_nertz_live_stores_the_trackers_revised_history_as_corrections(
        tmp_path: Path, clip: tuple[Path, Path]) -> None:
    from referee.store import Store
    from referee.terminal import LiveSession
    from rules import HouseRules

    video, labels = clip
    db = tmp_path / "live.db"
    session = LiveSession(db, 2, HouseRules(), {"kind": "video"}, labels=labels)
    cap = cv2.VideoCapture(str(video))
    n = 0
    while True:
        ok, image = cap.read()
        if not ok:
            break
        session.frame(image, n, n * 100)
        n += 1
    cap.release()
    session.finish()
    store = Store(db)
    effective = [e for _q, e in store.effective_events(session.round_id)]
    moves = [(e["card"], e["to"]) for e in effective if e["type"] == "move"]
    assert sorted(moves) == sorted([("AD", "lake:0"), ("AH", "lake:1"), ("2D", "lake:0"),
                                    ("3D", "lake:0")])
    assert not [e for e in effective if e["type"] == "flag"]
    assert effective[-1]["type"] == "round_end"
    assert {c["who"] for c in store.corrections(session.round_id)} == {"tracker"}
    recorded = [x["event"] for x in store.events(session.round_id)]
    assert ("AH", "lake:0") in [(e.get("card"), e.get("to")) for e in recorded]
    store.close()
