"""Benchmark of the rules core: meld validations and round scorings per second.

Run: .venv/bin/python bench/rules.py [--seconds 1.0]
Single thread (one core). Melds are random, pre-parsed and read unordered
(shuffled), so every validation searches for the best reading.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence

from scorer import Card, Joker, Piece, Rank, Round, Rules, Side, Suit, score_round, validate_meld

FIBUR = Rules.preset("burraco-fibur")


def random_run(rng: random.Random, length: int, wild: bool) -> tuple[Piece, ...]:
    suit = rng.choice(list(Suit))
    top = min(length, 13)
    start = rng.randint(1, 14 - top + 1)
    pieces: list[Piece] = [Card(Rank.from_number(n), suit) for n in range(start, start + top)]
    if wild:
        wilds: list[Piece] = [Joker(), Card(Rank.TWO, Suit.CLUBS)]
        pieces[rng.randrange(len(pieces))] = rng.choice(wilds)
    while len(pieces) < length:  # 14 pieces: a 13-card run plus one (never valid)
        pieces.append(Joker() if wild else Card(Rank.ACE, suit))
    rng.shuffle(pieces)
    return tuple(pieces)


def random_set(rng: random.Random, length: int, wild: bool) -> tuple[Piece, ...]:
    rank = rng.choice([r for r in Rank if r is not Rank.TWO])
    naturals = length - 1 if wild else length
    pieces: list[Piece] = [Card(rank, rng.choice(list(Suit))) for _ in range(naturals)]
    if wild:
        pieces.append(Joker())
    rng.shuffle(pieces)
    return tuple(pieces)


def rate(work: Callable[[object], object], items: Sequence[object], seconds: float) -> float:
    """Items per second: the median of five timed passes of about seconds/5 each."""
    rates = []
    for _ in range(5):
        done = 0
        start = time.perf_counter()
        deadline = start + seconds / 5
        while time.perf_counter() < deadline:
            for item in items:
                work(item)
            done += len(items)
        rates.append(done / (time.perf_counter() - start))
    return statistics.median(rates)


def show(label: str, per_second: float) -> None:
    print(f"{label:<44} {per_second:>12,.0f} {1e6 / per_second:>9.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per figure")
    args = parser.parse_args()
    rng = random.Random(20261130)

    print(f"{'melds (unordered, burraco-fibur)':<44} {'per second':>12} {'us each':>9}")
    for length in (3, 7, 14):
        for wild in (False, True):
            melds = [
                (random_run if i % 2 else random_set)(rng, length, wild)
                if length <= 9
                else random_run(rng, length, wild)
                for i in range(500)
            ]
            per_second = rate(lambda m: validate_meld(m, FIBUR), melds, args.seconds)  # type: ignore[arg-type]
            label = f"{length}-piece, {'one wild' if wild else 'no wild'}"
            valid = sum(validate_meld(m, FIBUR).valid for m in melds) / len(melds)
            show(f"{label} ({valid:.0%} valid)", per_second)

    rounds = []
    ranks, suits = list(Rank), list(Suit)
    for _ in range(200):
        sides = tuple(
            Side(
                name,
                melds=tuple(
                    random_run(rng, rng.choice((3, 4, 7)), rng.random() < 0.4) for _ in range(4)
                ),
                hands=(tuple(Card(rng.choice(ranks), rng.choice(suits)) for _ in range(5)),),
                took_pot=True,
            )
            for name in ("A", "B")
        )
        rounds.append(Round(FIBUR, sides))
    per_second = rate(score_round, rounds, args.seconds)  # type: ignore[arg-type]
    show("round scorings (2 sides, 4 melds each)", per_second)


if __name__ == "__main__":
    main()
