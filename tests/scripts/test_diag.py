"""The real-path diagnostics' classing of misses and column views."""

from __future__ import annotations

import os

import pytest

from rules import HouseRules
from scripts.diag_columns import classify
from scripts.diag_looks import band
from scripts.diag_misses import (
    RecordingTracker,
    cause,
    flag_errors,
    flag_kind,
    kind,
    settled_evidence,
    truth_near,
)
from scripts.diag_place import changes, read_text
from scripts.eval_replay import observations_name
from scripts.sum_replay import kept_files, round_dirs
from vision.observation import Observation, PlaceView, SeenCard


def test_a_column_view_is_classed_against_the_engine_and_the_truth():
    assert classify(("9S", "8D"), ("9S", "8D"), ("9S", "8D")) is None
    assert classify((), ("9S",), ()) == "cam empty"
    assert classify(("9S",), ("9S", "8D"), ("9S",)) == "left unseen"
    assert classify(("3H",), ("6S",), ("6S", "5D", "4S", "3H")) == "arrived unseen"
    assert classify(("2C",), ("4S", "3H"), ("4S", "3H", "2S")) == "cam misread"
    # with no labels for the frame, a differing top is judged against the engine alone
    assert classify(("3H",), ("6S",), None) == "arrived unseen"


def test_a_missed_move_is_classed_by_what_the_tracker_did_with_its_card_nearby():
    miss = {"seat": 0, "card": "3H", "from": "seat0:waste", "to": "lake:1", "t_ms": 31000}
    assert kind(miss["from"]) == "waste" and kind(miss["to"]) == "lake"
    assert kind("seat2:river3") == "river"
    other_seat = {**miss, "seat": 1, "from": "seat1:waste", "t_ms": 31500, "to": "lake:4"}
    assert cause(miss, [other_seat]) == ("wrong seat", [other_seat])
    nertz = {**miss, "from": "seat0:nertz"}
    assert cause(miss, [nertz])[0] == "wrong src"
    assert cause(miss, [{**miss, "t_ms": 45000}])[0] == "none"  # (too late to be it)
    assert cause(miss, [{**miss, "to": "seat0:river2"}])[0] == "none"  # (not to the lake)


def test_a_missed_move_is_told_by_what_the_trackers_settled_views_showed():
    miss = {"seat": 0, "card": "KS", "from": "seat0:nertz", "to": "seat0:river0",
            "t_ms": 5000}
    before = (4000.0, {"seat0:nertz": ("KS",), "seat0:river0": ()})
    left = (5500.0, {"seat0:nertz": ("QS",), "seat0:river0": ()})
    both = (5600.0, {"seat0:nertz": ("QS",), "seat0:river0": ("KS",)})
    assert settled_evidence(miss, [before, left, both]) == "seen"
    assert settled_evidence(miss, [before, left]) == "left only"
    assert settled_evidence(miss, [before, (5600.0, {"seat0:nertz": ("KS",),
                                                     "seat0:river0": ("KS",)})]) == "arrived only"
    assert settled_evidence(miss, [before]) == "-"
    # too late to be it, and a lake move's card on top of any lake pile
    assert settled_evidence(miss, [before, left, (9500.0, both[1])]) == "left only"
    lake = {**miss, "to": "lake:3"}
    assert settled_evidence(lake, [before, (5600.0, {"seat0:nertz": ("QS",),
                                                     "lake:1": ("QS", "KS")})]) == "seen"
    # a recording tracker keeps every place's settled view after each observation
    tr = RecordingTracker(HouseRules(), 2)
    for n in range(3):
        tr.update(Observation(n, n * 100.0, {"seat0:nertz": PlaceView(
            "seat0:nertz", [SeenCard("KS", (0, 0, 1, 1))], 0.0)}))
    assert [t for t, _v in tr.settled] == [0.0, 100.0, 200.0]
    assert all(isinstance(v, dict) for _t, v in tr.settled)


def test_a_places_trace_shows_reads_with_their_next_reads_and_only_changes():
    cards = [SeenCard("QD", (0, 0, 1, 1)),
             SeenCard("KH", (0, 0, 1, 1), alternatives=(("QH", 0.06), ("3H", 0.1)))]
    assert read_text(cards, reads=False) == "QD KH"
    assert read_text(cards, reads=True) == "QD KH{QH:0.06,3H:0.10}"
    rows = [(0.0, "a", (1,)), (100.0, "b", (1,)), (200.0, "a", (1,)), (300.0, "a", (2,)),
            (400.0, "b", (1,))]
    assert [(t, p) for t, p, _s in changes(iter(rows))] == [(0.0, "a"), (100.0, "b"),
                                                            (300.0, "a")]


def test_an_extra_move_is_shown_with_the_simulators_moves_of_its_card_nearby():
    extra = {"seat": 1, "card": "3H", "from": "seat1:waste", "to": "lake:1", "t_ms": 31500}
    right = {**extra, "seat": 0, "from": "seat0:waste", "t_ms": 31120}
    later = {**extra, "t_ms": 60000}
    other = {**right, "card": "3D"}
    assert truth_near(extra, [right, later, other]) == [right]
    assert truth_near(extra, [later]) == []  # (a misread: no such card moved then)


def test_a_lake_credit_is_grouped_by_how_alike_its_looks_were():
    assert band(None) == "no look"
    assert band(12.0) == "<= 60" and band(60.0) == "<= 60"
    assert band(60.5) == "60-100" and band(100.0) == "60-100"
    assert band(250.0) == "> 100"


def test_flags_are_matched_one_to_one_and_the_rest_told_by_rule():
    race = {"seat": 1, "rule": "foundation_rank", "card": "7S", "t_ms": 20000,
            "detail": "7S on 7S, needs rank 8"}
    skip = {**race, "card": "9S", "detail": "9S on 7S, needs rank 8"}
    ace = {"seat": 0, "rule": "foundation_needs_ace", "card": "KC", "t_ms": 5000}
    assert flag_kind(race) == "foundation_rank X on X"
    assert flag_kind(skip) == "foundation_rank" and flag_kind(ace) == "foundation_needs_ace"
    got = [{**race, "t_ms": 21000}, {**race, "t_ms": 22000}, {**ace, "seat": 2}]
    false, missed = flag_errors([race, ace], got)
    # the first of the tracker's two 7S flags is the simulator's; another seat's KC is not
    assert false == got[1:] and missed == [ace]
    late = [{**ace, "t_ms": 9000}]  # (more than TOL_MS after)
    assert flag_errors([ace], late) == (late, [ace])


def test_observations_of_another_models_folder_are_kept_apart_and_picked_by_name(tmp_path):
    """``eval_replay --models DIR`` keeps its observations under a name of their own, and
    ``sum_replay`` and the diagnostics read ``models/``'s unless asked for DIR's."""
    tag, gate = "r0-s1-1280x720-10fps", {"settle_ms": 100.0}
    default = observations_name(tag, True, 1, gate)
    other = observations_name(tag, True, 1, gate, tmp_path / "m" / "gpu51")
    assert default == f"{tag}.incremental.settle_ms100.observations.pkl"
    assert other == f"{tag}.incremental.settle_ms100.models-gpu51.observations.pkl"
    d = tmp_path / "r0"
    d.mkdir()
    for name in (f"{tag}.jsonl", f"{tag}.labels.jsonl", default, other):
        (d / name).write_bytes(b"")
    os.utime(d / default, (1, 1))  # the other models' file is the newer one
    assert kept_files(d)[2].name == default
    assert kept_files(d, "gpu51")[2].name == other
    assert kept_files(d)[1].name == f"{tag}.labels.jsonl"
    with pytest.raises(FileNotFoundError, match="gpu52"):
        kept_files(d, "gpu52")
    assert round_dirs(tmp_path, models="gpu51") == [d]
    assert round_dirs(tmp_path, models="gpu52") == []
    (d / default).unlink()
    assert round_dirs(tmp_path) == []
