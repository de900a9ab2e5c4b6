"""Benchmark the rules engine: simulated 4-player rounds per second and legal-move
generations per second, on one core (pure Python, one thread).

    python -m scripts.bench_rules [--rounds 40] [--positions 200]
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time

from rules import HouseRules, Table
from rules.simulator import simulate_round


def bench_rounds(n: int, seats: int) -> tuple[float, float, int]:
    start = time.perf_counter()
    actions = 0
    lengths = []
    for seed in range(n):
        events = simulate_round(seats, HouseRules(), seed=seed)
        actions += sum(e["type"] not in ("flag", "deal") for e in events)
        lengths.append(events[-1]["t_ms"] / 1000)
    elapsed = time.perf_counter() - start
    return n / elapsed, statistics.median(lengths), actions


def bench_movegen(positions: int, seats: int) -> tuple[float, float]:
    """Play random legal moves and time ``legal_moves`` on every position reached."""
    rng = random.Random(0)
    tables = []
    for seed in range(positions):
        t = Table.deal(seats, HouseRules(), seed=seed)
        for step in range(rng.randrange(0, 150)):
            moves = list(t.legal_moves(step % seats))
            if moves:
                t.push(rng.choice(moves), t.now + 10)
        tables.append(t)
    calls, generated = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < 2.0:
        for t in tables:
            for seat in range(seats):
                generated += sum(1 for _ in t.legal_moves(seat))
                calls += 1
    elapsed = time.perf_counter() - start
    return calls / elapsed, generated / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--seats", type=int, default=4)
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, one thread")
    rps, median_len, actions = bench_rounds(args.rounds, args.seats)
    print(f"simulated {args.seats}-player rounds: {rps:.1f} rounds/s "
          f"({args.rounds} rounds, {actions} actions, median round {median_len:.0f} s of "
          "game time)")
    gps, per_call = bench_movegen(args.positions, args.seats)
    print(f"legal-move generation: {gps:,.0f} generations/s "
          f"({per_call:.1f} moves per position, {args.positions} positions)")


if __name__ == "__main__":
    main()
