import json
from collections import Counter

import pytest

from rules import HouseRules, Table
from rules.log import replay, write_log
from rules.simulator import round_events, simulate_match, simulate_round

from .helpers import layout, table


def test_same_seed_gives_identical_log_and_different_seed_differs(tmp_path):
    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    write_log(simulate_match(4, HouseRules(), seed=9, mistakes=0.1, rounds=2), a)
    write_log(simulate_match(4, HouseRules(), seed=9, mistakes=0.1, rounds=2), b)
    write_log(simulate_match(4, HouseRules(), seed=10, mistakes=0.1, rounds=2), c)
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()


def test_log_shape_follows_the_contract():
    events = simulate_round(5, HouseRules(), seed=3)
    assert events[0]["type"] == "round_start" and events[0]["seats"] == 5
    assert set(events[0]["rules"]) == set(HouseRules().to_dict())
    deals = events[1:6]
    assert [d["seat"] for d in deals] == list(range(5))
    for d in deals:
        assert len(d["nertz"]) == 13 and len(d["river"]) == 4 and len(d["stock"]) == 35
    times = [e["t_ms"] for e in events]
    assert times == sorted(times)
    assert events[-1]["type"] == "round_end"
    assert {"lake_cards", "nertz_left", "scores", "reason"} <= set(events[-1])
    for e in events:
        json.dumps(e)  # plain JSON


def test_bots_play_at_the_same_time_with_human_timing():
    events = simulate_round(4, HouseRules(), seed=1)
    moves = [e for e in events if e["type"] in ("move", "draw")]
    per_seat = Counter(e["seat"] for e in moves)
    assert len(per_seat) == 4 and min(per_seat.values()) > 10
    # actions of different seats interleave, and one seat's actions are human-paced
    seats_in_order = [e["seat"] for e in moves[:40]]
    assert len(set(seats_in_order[:8])) >= 3
    for seat in range(4):
        ts = [e["t_ms"] for e in moves if e["seat"] == seat]
        gaps = [b - a for a, b in zip(ts, ts[1:], strict=False)]
        assert min(gaps) >= 100 and sorted(gaps)[len(gaps) // 2] >= 300


def test_rounds_end_by_call_with_the_caller_empty():
    for seed in range(5):
        events = simulate_round(3, HouseRules(), seed=seed)
        end = events[-1]
        if end["reason"] == "call":
            calls = [e for e in events if e["type"] == "call" and e["valid"]]
            assert calls and end["nertz_left"][calls[0]["seat"]] == 0
            assert end["caller"] == calls[0]["seat"]


def test_mistakes_produce_flags_retracts_and_false_calls():
    rules_seen, retracts = Counter(), 0
    for seed in range(12):
        events = simulate_round(4, HouseRules(), seed=seed, mistakes=0.15)
        rules_seen.update(e["rule"] for e in events if e["type"] == "flag")
        retracts += sum(e["type"] == "retract" for e in events)
    assert {"foundation_suit", "foundation_needs_ace", "river_colour"} <= set(rules_seen)
    assert retracts > 10
    clean = Counter()
    for seed in range(6):
        events = simulate_round(4, HouseRules(), seed=seed, mistakes=0.0)
        clean.update(e["rule"] for e in events if e["type"] == "flag")
    # without mistakes only contested landings are ever flagged
    assert set(clean) <= {"foundation_rank"}


def test_contested_foundations_happen_and_are_settled():
    contested = 0
    for seed in range(30):
        events = simulate_round(6, HouseRules.preset("nertz", tie_rule="both"), seed=seed)
        lake_moves = [e for e in events if e["type"] == "move" and e["to"].startswith("lake")]
        by_instant = Counter((e["t_ms"], e["to"]) for e in lake_moves)
        contested += sum(1 for n in by_instant.values() if n > 1)
    assert contested >= 1


def test_a_stalled_round_ends_by_stall():
    # every card is buried: no Aces reachable, nothing moves in the river
    kings = ["KC", "KD", "KH", "KS"]
    def stuck(seat):
        deck = [c for c in (r + s for s in "CDHS" for r in
                            ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"])]
        nertz = [c for c in deck if c.startswith("A")] + [c for c in deck if c[:-1] in (
            "2", "3")][:8] + ["QC"]
        river = [[k] for k in kings]
        rest = [c for c in deck if c not in nertz and c not in kings]
        return layout(seat, nertz, river, stock=rest)
    rules = HouseRules(draw=1, redeals=0)
    t = table(stuck(0), stuck(1), rules=rules)
    events = round_events(t, seed=1)
    end = events[-1]
    assert end["type"] == "round_end" and end["reason"] == "stall"
    assert min(end["nertz_left"]) >= 12 and end["lake_cards"] == [0, 0]
    assert end["scores"] == [-2 * n for n in end["nertz_left"]]


def test_match_plays_until_decided(tmp_path):
    events = list(simulate_match(3, HouseRules(target=30), seed=2, rounds=40))
    end = events[-1]
    assert end["type"] == "match_end" and end["winner"] is not None
    assert max(end["totals"]) >= 30
    starts = [e for e in events if e["type"] == "round_start"]
    assert [e["round"] for e in starts] == list(range(1, len(starts) + 1))
    path = tmp_path / "match.jsonl"
    write_log(events, path)
    result = replay(path)
    assert result.consistent and result.match.standings()["winner"] == end["winner"]


def test_bad_arguments():
    with pytest.raises(ValueError, match="2 to 8"):
        simulate_round(1)
    with pytest.raises(ValueError, match="mistakes"):
        round_events(Table.deal(2), seed=0, mistakes=2)


def _emptied_and_called(events):
    """(seat, t when its nertz pile emptied, t of its first true call) for the caller."""
    counts = {d["seat"]: len(d["nertz"]) for d in events if d["type"] == "deal"}
    emptied = {}
    for e in events:
        if e["type"] == "move" and e["from"].endswith(":nertz"):
            counts[e["seat"]] -= 1
            if counts[e["seat"]] == 0:
                emptied.setdefault(e["seat"], e["t_ms"])
        if e["type"] == "retract" and e["to"].endswith(":nertz"):
            counts[e["seat"]] += 1
        if e["type"] == "call" and e["valid"]:
            return e["seat"], emptied[e["seat"]], e["t_ms"]
    return None


def test_must_call_decides_whether_an_empty_pile_plays_on():
    eager, patient = [], []
    for seed in range(8):
        for must_call, sink in ((True, eager), (False, patient)):
            events = simulate_round(4, HouseRules(must_call=must_call), seed=seed)
            found = _emptied_and_called(events)
            if found is None:
                continue
            seat, emptied, called = found
            lake_after = sum(1 for e in events if e["type"] == "move" and e["seat"] == seat
                             and e["to"].startswith("lake") and emptied < e["t_ms"] < called)
            sink.append((called - emptied, lake_after))
    assert eager and patient
    assert all(lake == 0 and delay < 4000 for delay, lake in eager)
    assert any(lake > 0 for _delay, lake in patient)


def test_stall_timeout_sets_when_a_stalled_round_ends():
    def stall_end(timeout):
        kings = ["KC", "KD", "KH", "KS"]
        def stuck(seat):
            deck = [r + s for s in "CDHS" for r in
                    ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]]
            nertz = [c for c in deck if c[:-1] in ("A", "2", "3")][:13]
            rest = [c for c in deck if c not in nertz and c not in kings]
            return layout(seat, nertz, [[k] for k in kings], stock=rest)
        t = table(stuck(0), stuck(1), rules=HouseRules(draw=1, redeals=0,
                                                        stall_timeout_s=timeout))
        events = round_events(t, seed=4)
        last_play = max((e["t_ms"] for e in events if e["type"] == "move" and (
            e["to"].startswith("lake") or e["from"].endswith(("nertz", "waste")))), default=0)
        return events[-1], last_play
    end, last_play = stall_end(45)
    assert end["reason"] == "stall" and end["t_ms"] >= last_play + 45_000
    short, last_play = stall_end(5)
    assert short["t_ms"] < end["t_ms"]
