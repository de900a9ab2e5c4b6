"""scripts.diag_reads: per-place read accuracy of kept observations against labels."""

from __future__ import annotations

import json
import pickle

from scripts.diag_reads import askew, compare, main, misread_kind, river_strips
from vision.observation import Observation, PlaceView, SeenCard

BOX = (0.0, 0.0, 10.0, 10.0)


def _label(place: str, code: str) -> dict:
    return {"code": code, "box": list(BOX), "place": place, "depth": 0, "z": 0,
            "face_up": True, "indices": [{"visible": 1.0}]}


def test_misreads_and_lake_piles_matched_by_code():
    labels = [{"frame": 0, "t_ms": 0, "hands": [],
               "cards": [_label("seat0:nertz", "AS"), _label("seat0:river0", "KH"),
                         _label("lake:0", "2C")]}]
    obs = [Observation(0, 0.0, {
        "seat0:nertz": PlaceView("seat0:nertz", [SeenCard("AC", BOX)]),
        "seat0:river0": PlaceView("seat0:river0", [SeenCard("KH", BOX)]),
        "lake:3": PlaceView("lake:3", [SeenCard("2C", BOX)]),  # the model's own pile id
    })]
    tally, misreads = compare(obs, labels)
    assert tally[("nertz", False)] == 1 and tally[("river", True)] == 1
    assert tally[("lake", True)] == 1
    assert misreads == {("AS", "AC", "nertz"): 1}


def test_river_strips_are_counted_per_seat_and_askew_seats_known():
    def card(place: str, code: str, visible: float = 1.0) -> dict:
        return {**_label(place, code), "indices": [{"visible": visible}]}

    labels = [{"frame": 10, "cards": [card("seat0:river0", "KH"), card("seat0:river0", "QS"),
                                      card("seat1:river2", "9D"),
                                      card("seat1:river2", "8C", visible=0.5)]}]
    obs = [Observation(10, 1000.0, {
        "seat0:river0": PlaceView("seat0:river0", [SeenCard("KH", BOX), SeenCard("QC", BOX)]),
        "seat1:river2": PlaceView("seat1:river2", [SeenCard("9D", BOX), SeenCard("8C", BOX),
                                                   SeenCard("7H", BOX)]),
    })]
    tally = river_strips(obs, labels)
    assert (tally[("seat0", "read")], tally[("seat0", "cards")]) == (1, 2)
    assert (tally[("seat1", "read")], tally[("seat1", "cards")], tally[("seat1", "extra")]) \
        == (1, 1, 2)  # (the half-hidden 8C is not counted)
    obs[0].places["seat0:river0"].covered = 0.5  # under a hand: not counted
    assert river_strips(obs, labels)[("seat0", "cards")] == 0
    header = {"camera": {"yaw_deg": 30.0},
              "table": {"seats": [{"seat": 0, "angle_deg": 0.0}, {"seat": 1, "angle_deg": 120.0},
                                  {"seat": 2, "angle_deg": 240.0}]}}
    assert askew(header) == {"seat0": 30.0, "seat1": 0.0, "seat2": 30.0}


def test_misreads_are_told_by_kind():
    assert misread_kind("7C", "7S") == "twin suit" and misread_kind("7D", "7H") == "twin suit"
    assert misread_kind("7C", "7H") == "suit"
    assert misread_kind("7C", "8C") == "rank" and misread_kind("7C", "8D") == "both"
    assert misread_kind("7C", None) == "unread" and misread_kind("back", "KC") == "back"


def test_a_set_of_round_folders_is_read_from_each_ones_newest_observations(tmp_path, capsys):
    for name, read in (("r0", "AC"), ("r1", "KH")):
        d = tmp_path / name
        d.mkdir()
        stem = f"{name}-s1-1280x720-10fps"
        labels = {"frame": 0, "t_ms": 0, "hands": [], "cards": [_label("seat0:nertz", "AS")]}
        (d / f"{stem}.labels.jsonl").write_text(json.dumps({"type": "header"}) + "\n"
                                                 + json.dumps(labels) + "\n")
        obs = [Observation(0, 0.0, {"seat0:nertz": PlaceView("seat0:nertz",
                                                             [SeenCard(read, BOX)])})]
        with open(d / f"{stem}.incremental.observations.pkl", "wb") as fh:
            pickle.dump(obs, fh)
    main([str(tmp_path)])
    out = capsys.readouterr().out
    assert "2 round(s)" in out
    assert "read right in 0 of 2" in out
    assert "twin suit 1" in out and "both 1" in out
