"""A real uvicorn server of the referee service in a subprocess, on a free loopback port."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

LAUNCH = ("import sys, uvicorn; from referee.service import create_app; "
          "uvicorn.run(create_app(sys.argv[1], max_upload=int(sys.argv[3]), "
          "synchronous=sys.argv[4]), "
          "host='127.0.0.1', port=int(sys.argv[2]), log_level='warning')")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``nertz serve`` equivalent for tests: start, kill -9, restart on the same database."""

    def __init__(self, db: Path, max_upload: int = 10_000_000, sync: str = "NORMAL") -> None:
        self.db = db
        self.sync = sync
        self.max_upload = max_upload
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = db.with_suffix(".server.log")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 20.0) -> Server:
        root = Path(__file__).resolve().parents[2]
        env = {**os.environ, "PYTHONPATH": str(root)}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", LAUNCH, str(self.db), str(self.port), str(self.max_upload),
             self.sync],
            cwd=root, env=env, stdout=subprocess.DEVNULL,
            stderr=open(self.log, "ab"))  # noqa: SIM115
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/api/presets", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("server did not start")

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=20)


def make_table(c: httpx.Client, seats: int = 4, **extra: Any) -> tuple[int, str, list[str]]:
    r = c.post("/api/tables", json={"name": "t", "seats": seats, **extra})
    assert r.status_code == 201, r.text
    d = r.json()
    return d["table"]["id"], d["token"], d["seat_tokens"]


def upload_file(c: httpx.Client, path: Path) -> dict[str, Any]:
    """Upload a file (its kind told by its name); the upload's record."""
    r = c.post("/api/uploads", content=path.read_bytes(), headers={"X-Filename": path.name})
    assert r.status_code == 201, r.text
    return r.json()


def start_video_round(c: httpx.Client, video: Path, labels: Path, seats: int = 2
                      ) -> tuple[int, dict[str, Any], dict[str, Any]]:
    """Upload a video and its labels, make a table and start a video round of them at
    full speed: (round id, the video's upload record, the labels' upload record)."""
    up_v, up_l = upload_file(c, video), upload_file(c, labels)
    tid, token, _ = make_table(c, seats=seats)
    r = c.post(f"/api/tables/{tid}/rounds", headers=auth(token),
               json={"kind": "video", "upload_id": up_v["id"],
                     "labels_upload_id": up_l["id"], "speed": 0})
    assert r.status_code == 201, r.text
    return r.json()["id"], up_v, up_l


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def wait_round(c: httpx.Client, round_id: int, status: str = "ended",
               timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = c.get(f"/api/rounds/{round_id}").json()
        if r["status"] == status:
            return r
        time.sleep(0.05)
    raise AssertionError(f"round {round_id} not {status} after {timeout} s")


def jsonl(events: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(e) + "\n" for e in events)
