"""A video played as a live source through the vision pipeline on a real uvicorn server, and
the review of a flagged event frame by frame (frame N as a JPEG with the overlay).

The fast test cuts a 20 s clip (MJPEG) out of the bundled 384×216 demo round and plays it
with oracle observations from its render labels (the detector cannot read cards that
small); the real path on that clip is checked for answering with a clear error or running,
never a crash. A slow test plays the bundled 1280×720 copy through the real pipeline (no
labels) and checks the moves and scores it finds by itself."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.demo import demo_files

from .service_helpers import (
    Server,
    auth,
    make_table,
    start_video_round,
    upload_file,
    wait_round,
)

CLIP_FRAMES = 200


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("video") / "nertz.db", max_upload=50_000_000).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[dict]]:
    """(video, labels, the truth log's events in the clip) of the demo's first 20 s."""
    files = demo_files()
    work = tmp_path_factory.mktemp("clip")
    cap = cv2.VideoCapture(str(files["video"]))
    fps = cap.get(cv2.CAP_PROP_FPS)
    video = work / "clip.avi"
    writer = None
    for _ in range(CLIP_FRAMES):
        ok, image = cap.read()
        assert ok
        if writer is None:
            writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), fps,
                                     (image.shape[1], image.shape[0]))
            writer.set(cv2.VIDEOWRITER_PROP_QUALITY, 60)
        writer.write(image)
    assert writer is not None
    writer.release()
    cap.release()
    with gzip.open(files["labels"], "rt") as fh:
        lines = [json.loads(x) for x in fh if x.strip()]
    labels = work / "clip.labels.jsonl"
    labels.write_text("".join(json.dumps(x) + "\n" for x in lines
                              if x.get("type") == "header" or x["frame"] < CLIP_FRAMES))
    end_ms = CLIP_FRAMES * 1000 / fps
    truth = [json.loads(x) for x in files["log"].read_text().splitlines()]
    return video, labels, [e for e in truth if e["t_ms"] < end_ms]


def test_video_source_plays_live_and_a_flag_is_reviewed_frame_by_frame(
        server: Server, clip: tuple[Path, Path, list[dict]]) -> None:
    video, labels, truth = clip
    with server.client() as c:
        rid, up_v, up_l = start_video_round(c, video, labels)
        assert (up_v["kind"], up_l["kind"]) == ("video", "labels")
        rnd = wait_round(c, rid, timeout=60)
        assert rnd["score"] is not None
        events = [x["event"] for x in c.get(f"/api/rounds/{rid}/recorded").json()]
        moves = [e for e in events if e["type"] == "move"]
        assert moves and all(isinstance(e.get("frame"), int) for e in moves)
        want = {(e["seat"], e["card"], e["to"]) for e in truth if e["type"] == "move"}
        got = {(e["seat"], e["card"], e["to"]) for e in moves}
        assert len(want & got) >= 0.7 * len(want), (want - got, got - want)
        assert events[-1]["type"] == "round_end"

        info = c.get(f"/api/rounds/{rid}/frames").json()
        assert info["count"] == CLIP_FRAMES and info["from"] == "video" and info["labels"]
        flags = c.get(f"/api/rounds/{rid}/flags").json()
        assert flags, "the clip holds two illegal moves"
        n = flags[0]["frame"]
        assert isinstance(n, int) and n > 0
        shots = {}
        for k in (n - 1, n, n + 1):
            r = c.get(f"/api/rounds/{rid}/frames/{k}.jpg")
            assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg"
            shots[k] = cv2.imdecode(np.frombuffer(r.content, np.uint8), cv2.IMREAD_COLOR)
        plain = c.get(f"/api/rounds/{rid}/frames/{n}.jpg", params={"overlay": "false"})
        raw = cv2.imdecode(np.frombuffer(plain.content, np.uint8), cv2.IMREAD_COLOR)
        h, w = raw.shape[:2]
        assert shots[n].shape[:2] == (3 * h, 3 * w)  # small frames are enlarged to read
        # the flag is written in red in the event lines of its frame, not of the one before
        band = [s[22:40 + 18 * 3, :360] for s in (shots[n - 1], shots[n])]
        red = [int(((b[..., 2] > 200) & (b[..., 1] < 130) & (b[..., 0] < 130)).sum())
               for b in band]
        assert red[1] > red[0] + 30, red
        assert c.get(f"/api/rounds/{rid}/frames/{CLIP_FRAMES + 5}.jpg").status_code == 404
        assert c.get(f"/api/rounds/{rid}/frames/-1.jpg").status_code in (404, 422)


def test_frames_source_keeps_frames_for_review(server: Server,
                                               clip: tuple[Path, Path, list[dict]]) -> None:
    video, labels, _truth = clip
    with server.client() as c:
        up_l = upload_file(c, labels)
        tid, token, _ = make_table(c, seats=2)
        r = c.post(f"/api/tables/{tid}/rounds", headers=auth(token),
                   json={"kind": "frames", "labels_upload_id": up_l["id"]})
        assert r.status_code == 201, r.text
        rid = r.json()["id"]
        cap = cv2.VideoCapture(str(video))
        for _ in range(30):
            ok, image = cap.read()
            jpeg = cv2.imencode(".jpg", image)[1].tobytes()
            r = c.post(f"/api/rounds/{rid}/frames", content=jpeg, headers=auth(token))
            assert r.status_code == 200, r.text
        cap.release()
        assert c.get(f"/api/rounds/{rid}/frames").json()["count"] == 30
        r = c.get(f"/api/rounds/{rid}/frames/29.jpg")
        assert r.status_code == 200 and r.content[:3] == b"\xff\xd8\xff"
        assert c.get(f"/api/rounds/{rid}/frames/30.jpg").status_code == 404
        # a simulated round has no frames: 404, not 500
        r = c.post(f"/api/tables/{tid}/rounds", headers=auth(token),
                   json={"kind": "simulate", "speed": 0})
        assert r.status_code == 409  # one running round per table
        c.post(f"/api/rounds/{rid}/end", json={"reason": "abandon"}, headers=auth(token))
        sim = c.post(f"/api/tables/{tid}/rounds", headers=auth(token),
                     json={"kind": "simulate", "speed": 0}).json()["id"]
        assert c.get(f"/api/rounds/{sim}/frames/0.jpg").status_code == 404


def test_real_path_video_source_answers_or_runs_never_crashes(
        server: Server, clip: tuple[Path, Path, list[dict]], tmp_path: Path) -> None:
    from referee.demo import table_corners
    from vision.profile import make_profile

    video, labels, _truth = clip
    header = json.loads(labels.read_text().splitlines()[0])
    table = header["table"]
    profile = tmp_path / "table.toml"
    make_profile(profile, 2, table["shape"], f"{table['width_mm']:g}x{table['depth_mm']:g}",
                 table_corners(header))
    with server.client() as c:
        up_v = upload_file(c, video)
        tid, token, _ = make_table(c, seats=2)
        r = c.put(f"/api/tables/{tid}/profile", json={"toml": profile.read_text()},
                  headers=auth(token))
        assert r.status_code == 200, r.text
        r = c.post(f"/api/tables/{tid}/rounds", headers=auth(token),
                   json={"kind": "video", "upload_id": up_v["id"], "speed": 0})
        if r.status_code == 422:  # no card detector in models/: said in one line
            assert "vision pipeline" in r.json()["detail"]
            return
        assert r.status_code == 201, r.text
        rnd = wait_round(c, r.json()["id"], timeout=120)
        assert rnd["status"] == "ended" and rnd["score"] is not None


def _back_photo(colour: tuple[int, int, int], stripes: int, seed: int) -> bytes:
    """A photo of one card back on a dark table: a patterned card in the middle."""
    rng = np.random.default_rng(seed)
    image = np.full((240, 320, 3), 40, np.uint8)
    card = np.full((160, 110, 3), 235, np.uint8)
    card[8:-8, 8:-8] = colour
    for i in range(0, 150, 150 // stripes):
        cv2.line(card, (8, 8 + i), (101, 8 + i + 40), (250, 250, 250), 3)
    image[40:200, 105:215] = card
    image = np.clip(image + rng.normal(0, 4, image.shape), 0, 255).astype(np.uint8)
    return cv2.imencode(".png", image)[1].tobytes()


def test_back_photos_join_the_registry_saved_with_the_profile(server: Server,
                                                                tmp_path: Path) -> None:
    from referee.live import VisionPipeline
    from rules import HouseRules
    from vision.backs_registry import BackDesigns
    from vision.profile import TableProfile, make_profile

    profile = tmp_path / "table.toml"
    make_profile(profile, 2, "rect", "900x1400", "10,10;370,10;370,200;10,200")
    blue, red = _back_photo((160, 40, 20), 6, 1), _back_photo((30, 30, 170), 3, 2)
    with server.client() as c:
        tid, token, _ = make_table(c, seats=2)
        assert c.put(f"/api/tables/{tid}/profile", json={"toml": profile.read_text()},
                     headers=auth(token)).status_code == 200
        assert c.post(f"/api/tables/{tid}/seats/0/back", content=blue).status_code == 403
        for seat, photo in ((0, blue), (1, red)):
            r = c.post(f"/api/tables/{tid}/seats/{seat}/back", content=photo,
                       headers=auth(token))
            assert r.status_code == 200, r.text
        assert r.json()["backs"]["registered"] == [f"table{tid}-seat0", f"table{tid}-seat1"]
        r = c.post(f"/api/tables/{tid}/seats/1/back", content=b"\x89PNG\r\n\x1a\nbroken",
                   headers=auth(token))
        assert r.status_code in (415, 422)
        table = c.get(f"/api/tables/{tid}").json()
    saved = TableProfile.from_dict(__import__("tomllib").loads(table["profile_toml"]))
    assert [s.back for s in saved.seats] == [f"table{tid}-seat0", f"table{tid}-seat1"]
    registry = BackDesigns.from_dict(table["backs"]["registry"])
    photo = cv2.imdecode(np.frombuffer(_back_photo((160, 40, 20), 6, 9), np.uint8), 1)
    assert registry.match(photo[40:200, 105:215])[0] == f"table{tid}-seat0"
    # a vision source writes the registry beside the profile, where the table model reads it
    try:
        VisionPipeline(table, HouseRules(), profile_dir=tmp_path / "p")
    except ValueError:
        pass  # no card detector in models/: the profile and registry are written first
    loaded = TableProfile.load(tmp_path / "p" / f"table{tid}.toml")
    assert loaded.backs is not None and len(loaded.backs) == 2


@pytest.mark.slow
def test_the_720p_demo_video_scores_itself_through_the_real_pipeline(server: Server) -> None:
    """The bundled 1280×720 round as a live video source, with no labels: card detector
    (change-gated) → table model → tracker → engine, on the server. The scores appear by
    themselves (the end inferred from the first emptied nertz pile: no call is pressed), the
    same as ``nertz replay`` gives."""
    from referee.demo import demo_profile_toml, real_path_files
    from scripts.eval_replay import compare
    from vision.identify import MODELS

    files = real_path_files()
    if files is None or not (MODELS / "card_detector.onnx").is_file():
        pytest.skip("no 720p demo copy or no card detector")
    truth = [json.loads(x) for x in demo_files()["log"].read_text().splitlines()]
    with server.client() as c:
        up_v = upload_file(c, files["video"])
        tid, token, _ = make_table(c, seats=2)
        assert c.put(f"/api/tables/{tid}/profile", json={
            "toml": demo_profile_toml(files["labels"])}, headers=auth(token)).status_code == 200
        r = c.post(f"/api/tables/{tid}/rounds", headers=auth(token),
                   json={"kind": "video", "upload_id": up_v["id"], "speed": 0})
        assert r.status_code == 201, r.text
        rnd = wait_round(c, r.json()["id"], timeout=600)
        events = [x["event"] for x in c.get(f"/api/rounds/{rnd['id']}/recorded").json()]
    assert rnd["status"] == "ended" and events[-1]["type"] == "round_end"
    result = compare(truth, events)
    print(result)
    # measured 2026-11-30: 50 of 55 moves, the exact scores [-3, 9] (the round's scores are
    # the tracker's: its engine puts late-decided moves in their place)
    assert result["moves_hit"] >= 45, result
    assert all(abs(a - b) <= 1 for a, b in zip(result["scores"], result["truth_scores"],
                                               strict=True)), result
