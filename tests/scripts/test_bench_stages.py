"""scripts.bench_stages: a replay's region reads, table model and tracker, recorded once and
timed again offline on the same frames (a short render)."""

from __future__ import annotations

import pytest

from scripts import bench_stages

pytestmark = pytest.mark.slow


def test_stages_are_recorded_once_then_run_again_the_same(tmp_path):
    args = ["--seconds", "3", "--cache", str(tmp_path)]
    first = bench_stages.main([*args, "--save", str(tmp_path / "a.pkl")])["rows"]
    assert (tmp_path / "r0-s1-1280x720-30fps-3s.stages.pkl").is_file()
    assert first["regions"]["calls"] >= 1 and first["table_model"]["frames"] == 30
    # the reads are scored against the labels: most are right
    regions = first["regions"]
    assert regions["reads_right"] > 3 * regions["reads_wrong"]
    assert regions["focus_found"] <= regions["focus_expected"]
    again = bench_stages.main([*args, "--compare", str(tmp_path / "a.pkl")])["rows"]
    calls, frames = regions["calls"], first["table_model"]["frames"]
    assert again["regions"]["same_as_compared"] == f"{calls} of {calls}"
    assert again["table_model"]["same_as_compared"] == f"{frames} of {frames}"
    assert first["tracker"]["frames"] == frames and again["tracker"]["same_as_compared"]
    # a camera whose cards are larger: the regions are looked at shrunk, and read about
    # as well
    up = bench_stages.main([*args, "--up", "1.5", "--only", "regions"])["rows"]["regions"]
    assert up["calls"] == calls and up["reads_right"] >= 0.8 * regions["reads_right"]
