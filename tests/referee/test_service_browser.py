"""The web pages in headless Chromium (Debian's ``chromium``, driven by Playwright), and a
small fuzz of every API route from the app's own OpenAPI schema (no 500s)."""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from .service_helpers import Server, auth, make_table, wait_round

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("web") / "nertz.db").start()
    yield srv
    srv.stop()


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed "
                    "(apt-get install chromium)")
def test_live_page_shows_scores_and_a_false_call(server: Server, tmp_path: Path) -> None:
    pytest.importorskip("playwright.sync_api")
    with server.client() as c:
        tid, token, _ = make_table(c, players=["Ann", "Bob", "Cy", "Di"])
    with _setup_page(server, tid, token) as page:
        page.fill("#seed", "1")
        page.fill("#mistakes", "0.1")
        page.fill("#speed", "4")
        page.click("#start-btn")
        page.wait_for_url(f"**/live?table={tid}")
        page.wait_for_selector("#call-3")
        page.wait_for_function(
            "document.querySelectorAll('#events li').length > 5", timeout=20000)
        page.click("#call-3")  # seat 3 still holds its nertz pile: a false call
        page.wait_for_selector("#events li.flag", timeout=10000)
        assert "false_call" in page.inner_text("#events")
        page.keyboard.press("2")  # key 2 calls for seat 1
        page.wait_for_function("document.body.innerText.includes('seat1 calls')",
                               timeout=10000)
        assert "Ann" in page.inner_text("#scoreboard")
        page.screenshot(path=str(tmp_path / "live.png"))
        page.goto(f"{server.url}/review?table={tid}")
        page.wait_for_selector("#flags li a", timeout=10000)
        page.click("#flags li a")
        page.wait_for_selector("#fix button")


@contextmanager
def _setup_page(server: Server, tid: int, token: str) -> Iterator[Any]:
    """A headless Chromium page on the table's setup page, holding the table token."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        try:
            page = browser.new_page()
            page.goto(f"{server.url}/setup?table={tid}")
            page.fill("#token-in", token)
            page.click("#token-btn")
            yield page
        finally:
            browser.close()


@contextmanager
def _live_page(server: Server, tid: int, token: str) -> Iterator[Any]:
    """The same, on the table's live view."""
    with _setup_page(server, tid, token) as page:
        page.goto(f"{server.url}/live?table={tid}")
        yield page


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed "
                    "(apt-get install chromium)")
def test_demo_video_live_then_a_flag_reviewed_frame_by_frame(server: Server) -> None:
    """The bundled demo video as a live source (oracle observations from its labels): the
    live page shows its events and scores, a call button records a false call, and the
    review page shows a flagged event's frame, stepping frame by frame."""
    import gzip

    from referee.demo import demo_files

    pytest.importorskip("playwright.sync_api")
    files = demo_files()
    with server.client() as c:
        tid, token, _ = make_table(c, seats=2, players=["Ann", "Bob"])
        video = c.post("/api/uploads", content=files["video"].read_bytes()).json()
        labels = c.post("/api/uploads", content=gzip.decompress(
            files["labels"].read_bytes())).json()
    with _live_page(server, tid, token) as page:
        with server.client() as c:
            r = c.post(f"/api/tables/{tid}/rounds", headers=auth(token),
                       json={"kind": "video", "upload_id": video["id"],
                             "labels_upload_id": labels["id"], "speed": 6})
            assert r.status_code == 201, r.text
            rid = r.json()["id"]
        page.wait_for_function(
            "document.querySelectorAll('#events li').length > 8", timeout=30000)
        page.click("#call-0")  # seat 0 still holds cards in its nertz pile
        page.wait_for_function("document.body.innerText.includes('false_call')",
                               timeout=10000)
        assert "Ann" in page.inner_text("#scoreboard")
        page.goto(f"{server.url}/review?table={tid}&round={rid}")
        page.wait_for_selector("#flags li a", timeout=10000)
        page.click("#flags li a")
        page.wait_for_function("$('frame').complete && $('frame').naturalWidth > 300",
                               timeout=10000)
        first = page.inner_text("#f-label")
        page.click("#f-next")
        page.wait_for_function(f"$('f-label').innerText !== {first!r}")
        page.keyboard.press("ArrowLeft")
        page.wait_for_function(f"$('f-label').innerText === {first!r}")
        page.wait_for_function("$('frame').complete && $('frame').naturalWidth > 300")


def _junk(rng: random.Random) -> object:
    return rng.choice([None, 0, -1, 10**12, "", "x" * 300, "../../etc/passwd", [], {},
                       {"seat": -3}, {"kind": "camera"}, {"changes": []}, 1.5, True,
                       {"seats": 99}, {"upload_id": "\x00"}, {"reason": "victory"}])


def test_fuzz_every_route_from_the_openapi_schema(server: Server) -> None:
    rng = random.Random(7)
    with server.client() as c:
        tid, token, _ = make_table(c)
        c.post(f"/api/tables/{tid}/rounds", json={"kind": "events"}, headers=auth(token))
        schema = c.get("/openapi.json").json()
        ids = ["1", str(tid), "0", "999999", "-5", "abc", "%2e%2e"]
        sent = 0
        for path, ops in schema["paths"].items():
            for method in ops:
                for _ in range(12):
                    url = path
                    for name in ("table_id", "round_id", "seq", "seat", "job_id", "n"):
                        url = url.replace("{" + name + "}", rng.choice(ids))
                    body = _junk(rng)
                    headers = auth(token) if rng.random() < 0.5 else {}
                    try:
                        r = c.request(method.upper(), url, json=body, headers=headers)
                    except httpx.HTTPError as exc:  # pragma: no cover
                        raise AssertionError(f"{method} {url}: {exc}") from None
                    sent += 1
                    assert r.status_code < 500, (method, url, body, r.text)
        assert sent > 100


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed "
                    "(apt-get install chromium)")
def test_the_720p_demo_video_through_the_real_pipeline_scores_itself_on_the_page(
        server: Server) -> None:
    """The bundled 1280×720 round as a live video source with no labels (card detector →
    table model → tracker): the live page fills with its events, a call button records a
    false call, and the scoreboard ends with the scores the referee found by itself."""
    from referee.demo import demo_profile_toml, real_path_files
    from vision.identify import MODELS

    pytest.importorskip("playwright.sync_api")
    files = real_path_files()
    if files is None or not (MODELS / "card_detector.onnx").is_file():
        pytest.skip("no 720p demo copy or no card detector")
    with server.client() as c:
        tid, token, _ = make_table(c, seats=2, players=["Ann", "Bob"])
        assert c.put(f"/api/tables/{tid}/profile", json={"toml": demo_profile_toml(
            files["labels"])}, headers=auth(token)).status_code == 200
        video = c.post("/api/uploads", content=files["video"].read_bytes()).json()
    with _live_page(server, tid, token) as page:
        with server.client() as c:
            r = c.post(f"/api/tables/{tid}/rounds", headers=auth(token),
                       json={"kind": "video", "upload_id": video["id"], "speed": 0})
            assert r.status_code == 201, r.text
            rid = r.json()["id"]
        page.wait_for_function(
            "document.querySelectorAll('#events li').length > 8", timeout=120000)
        page.click("#call-0")  # seat 0 still holds cards in its nertz pile
        page.wait_for_function("document.body.innerText.includes('false_call')",
                               timeout=30000)
        with server.client() as c:
            rnd = wait_round(c, rid, timeout=300)
        page.wait_for_function("document.body.innerText.includes('round ends')",
                               timeout=30000)
        board = page.inner_text("#scoreboard")
        assert "Ann" in board and "Bob" in board
        scores = rnd["score"]["scores"]
        assert scores[0] <= -3 - 5 + 1  # the truth's -3 and the false call's -5
        assert abs(scores[1] - 9) <= 1  # seat 1's: the simulator's 9
        assert str(scores[1]) in board
