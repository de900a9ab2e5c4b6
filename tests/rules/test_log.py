import json

import pytest

from rules import HouseRules
from rules.log import LogError, replay, write_log
from rules.simulator import simulate_round


@pytest.fixture
def events():
    return simulate_round(3, HouseRules(), seed=4, mistakes=0.1)


def write(tmp_path, events, name="round.jsonl"):
    path = tmp_path / name
    write_log(events, path)
    return path


def test_consistent_log_replays(tmp_path, events):
    result = replay(write(tmp_path, events))
    assert result.consistent
    assert result.rounds[0].score.scores == events[-1]["scores"]


def test_truncated_log_names_the_line(tmp_path, events):
    path = write(tmp_path, events[:-10])
    with pytest.raises(LogError, match=r"line \d+: the log ends before round 1's round_end"):
        replay(path)
    text = write(tmp_path, events).read_text()
    cut = tmp_path / "cut.jsonl"
    cut.write_text(text[: len(text) - 40])
    with pytest.raises(LogError, match=rf"line {len(events)}: not a complete JSON"):
        replay(cut)


def test_out_of_order_names_the_line(tmp_path, events):
    i = next(i for i, e in enumerate(events) if e["type"] == "draw" and e["t_ms"] > 2000)
    bad = [dict(e) for e in events]
    bad[i]["t_ms"] = 5
    with pytest.raises(LogError, match=rf"line {i + 1}: t_ms 5 is before"):
        replay(write(tmp_path, bad))


def test_card_not_where_the_log_says(tmp_path, events):
    i = next(i for i, e in enumerate(events) if e["type"] == "move")
    bad = [dict(e) for e in events]
    bad[i]["from"] = bad[i]["from"].replace("seat", "seat").rsplit(":", 1)[0] + ":waste"
    with pytest.raises(LogError, match=rf"line {i + 1}: .* is not in seat\d:waste"):
        replay(write(tmp_path, bad))
    bad = [dict(e) for e in events]
    bad[i]["card"] = "ZZ"
    with pytest.raises(LogError, match=rf"line {i + 1}: not a card code"):
        replay(write(tmp_path, bad))


def test_wrong_scores_and_wrong_draws_are_caught(tmp_path, events):
    bad = [dict(e) for e in events]
    bad[-1]["scores"] = [s + 1 for s in bad[-1]["scores"]]
    result = replay(write(tmp_path, bad))
    assert not result.consistent and "scores" in result.rounds[0].problems[0]
    bad = [dict(e) for e in events]
    i = next(i for i, e in enumerate(bad) if e["type"] == "draw")
    bad[i]["cards"] = list(reversed(bad[i]["cards"]))
    with pytest.raises(LogError, match=rf"line {i + 1}: draw shows"):
        replay(write(tmp_path, bad))


def test_missing_deal_and_bad_rules(tmp_path, events):
    with pytest.raises(LogError, match="line 4: expected the deal of seat 2"):
        replay(write(tmp_path, events[:3] + events[4:]))
    bad = [dict(e) for e in events]
    bad[0] = {**bad[0], "rules": {**bad[0]["rules"], "draw": 4}}
    with pytest.raises(LogError, match="line 1: option draw"):
        replay(write(tmp_path, bad))


def test_unreadable_and_empty_files(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(LogError, match="no events"):
        replay(empty)
    with pytest.raises(LogError, match="cannot read"):
        replay(tmp_path / "missing.jsonl")
    junk = tmp_path / "junk.jsonl"
    junk.write_text(json.dumps([1, 2]) + "\n")
    with pytest.raises(LogError, match="line 1: an event must be a JSON object"):
        replay(junk)


def test_an_unseen_card_event_round_trips_and_replays(tmp_path):
    # the tracker's record of a nertz card that left unseen is part of the notation
    from rules import Move, Unseen, action_from_event, action_to_event
    from rules.log import replay, write_log

    ev = action_to_event(Unseen(1, "QD", "seat1:nertz"), 4200)
    assert ev == {"type": "unseen", "t_ms": 4200, "seat": 1, "card": "QD",
                  "from": "seat1:nertz"}
    assert action_from_event(ev) == Unseen(1, "QD", "seat1:nertz")
    with pytest.raises(ValueError, match="lacks the field 'from'"):
        action_from_event({"type": "unseen", "t_ms": 1, "seat": 1, "card": "QD"})
    back = action_to_event(Move(1, "QD", "seat1:nertz", "lake:0", lost=True), 5000)
    assert back["lost"] is True and action_from_event(back).lost
    assert "lost" not in action_to_event(Move(1, "QD", "seat1:nertz", "lake:0"), 5000)
    hid = action_to_event(Move(1, "QD", "seat1:stock", "lake:0", hidden=True), 5000)
    assert hid["hidden"] is True and action_from_event(hid).hidden
    assert "hidden" not in back
    from rules import Table
    t = Table.deal(2, seed=3)
    top = t.layouts[1].nertz[-1].code
    deals = [{"type": "deal", "t_ms": 0, **t.layouts[k].to_deal_event(k)} for k in (0, 1)]
    events = [{"type": "round_start", "t_ms": 0, "round": 1, "seats": 2,
               "rules": t.rules.to_dict()}, *deals,
              {"type": "unseen", "t_ms": 100, "seat": 1, "card": top, "from": "seat1:nertz"},
              {"type": "round_end", "t_ms": 200, "reason": "stall"}]
    write_log(events, tmp_path / "log.jsonl")
    got = replay(tmp_path / "log.jsonl")
    assert got.consistent and got.rounds[0].table.nertz_count(1) == 12
    assert got.rounds[0].score.nertz_left == [13, 12]
