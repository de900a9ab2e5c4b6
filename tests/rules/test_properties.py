"""Property-based tests: card conservation, generator soundness, replay, score arithmetic."""

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import PRESETS, HouseRules, Table
from rules.log import replay, write_log
from rules.simulator import simulate_round

presets = st.sampled_from(sorted(PRESETS))


def assert_every_card_in_one_place(table: Table) -> None:
    cards = table.all_cards()
    counts = Counter((c.code, c.owner) for c in cards)
    assert all(n == 1 for n in counts.values()), [k for k, n in counts.items() if n > 1]
    assert len(cards) == table.seats * table.rules.deck_size


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seats=st.integers(2, 8), preset=presets, seed=st.integers(0, 10**6),
       choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=120))
def test_random_legal_play_conserves_cards_and_generator_is_sound(seats, preset, seed, choices):
    table = Table.deal(seats, HouseRules.preset(preset), seed=seed)
    t = 0
    for i, pick in enumerate(choices):
        seat = pick % seats if not table.rules.turn_based else table.turn
        moves = list(table.legal_moves(seat))
        for m in moves:
            assert table.is_legal(m, t) is True, (m, table.is_legal(m, t))
        if not moves:
            continue
        t += 1 + pick % 50
        assert table.push(moves[pick % len(moves)], t) == []
        if i % 10 == 0:
            assert_every_card_in_one_place(table)
    assert_every_card_in_one_place(table)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seats=st.integers(2, 8), preset=presets, seed=st.integers(0, 10**6),
       mistakes=st.sampled_from([0.0, 0.05, 0.2]))
def test_replaying_a_simulated_log_reproduces_its_scores(tmp_path_factory, seats, preset, seed,
                                                         mistakes):
    rules = HouseRules.preset(preset)
    events = simulate_round(seats, rules, seed, mistakes)
    path = tmp_path_factory.mktemp("log") / "round.jsonl"
    write_log(events, path)
    result = replay(path)
    assert result.consistent, [r.problems for r in result.rounds]
    [r] = result.rounds
    end = events[-1]
    assert r.score.scores == end["scores"] and r.score.lake_cards == end["lake_cards"]
    assert_every_card_in_one_place(r.table)
    # score arithmetic: +1 per own lake card, -penalty per nertz card, bonus, false calls
    for k in range(seats):
        expect = (end["lake_cards"][k] - rules.nertz_penalty * end["nertz_left"][k]
                  + end["bonus"][k] + end["false_calls"][k] * rules.false_call_penalty)
        assert end["scores"][k] == (0 if end["reason"] == "abandon" else expect)
    # lake cards that count are exactly the legal placements of that owner
    counted = Counter(pl.card.owner for f in r.table.lake for pl in f.placements if pl.counts)
    assert [counted.get(k, 0) for k in range(seats)] == end["lake_cards"]


@pytest.mark.slow
def test_many_simulated_rounds_replay_consistently(tmp_path):
    """A wide sweep: every preset, 2–8 seats, mistake rates up to 0.5."""
    rng = random.Random(2026)
    for i in range(160):
        seats, preset = rng.randint(2, 8), rng.choice(sorted(PRESETS))
        seed, mistakes = rng.randrange(10**6), rng.choice([0.0, 0.05, 0.2, 0.5])
        events = simulate_round(seats, HouseRules.preset(preset), seed, mistakes)
        path = tmp_path / f"{i}.jsonl"
        write_log(events, path)
        result = replay(path)
        assert result.consistent, (seats, preset, seed, mistakes)
        assert_every_card_in_one_place(result.rounds[0].table)
