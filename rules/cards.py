"""Cards, card codes and place names: the small value types of the engine."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("C", "D", "H", "S")
RED_SUITS = frozenset("DH")
#: Jokers (only with the ``jokers`` option): a red and a black one per deck.
JOKER_CODES: tuple[str, ...] = ("JKR", "JKB")
ALL_CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)


class CardCodeError(ValueError):
    """A string that is not a card code (``A 2 … 10 J Q K`` + ``C D H S``)."""


class PlaceError(ValueError):
    """A string that is not a place name of the event-log contract."""


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card: rank 1 (Ace) to 13 (King), suit, and the seat whose deck it is.

    Jokers have rank 0 and suit ``"R"`` (red joker) or ``"B"`` (black joker).
    """

    rank: int
    suit: str
    owner: int | None = None

    @classmethod
    def parse(cls, code: str, owner: int | None = None) -> Card:
        """Parse a card code such as ``10H`` or ``QS`` (or ``JKR``/``JKB`` for jokers)."""
        if not isinstance(code, str):
            raise CardCodeError(f"card code must be a string, got {code!r}")
        text = code.strip().upper()
        if text in JOKER_CODES:
            return cls(0, text[2], owner)
        if len(text) < 2 or text[-1] not in SUITS or text[:-1] not in RANKS:
            raise CardCodeError(
                f"not a card code: {code!r} (expected rank A 2-10 J Q K then suit C D H S, "
                "e.g. 10H or QS)"
            )
        return cls(RANKS.index(text[:-1]) + 1, text[-1], owner)

    @property
    def code(self) -> str:
        # (is_joker inlined: the tracker asks for codes some hundred thousand times a minute)
        return "JK" + self.suit if self.rank == 0 else RANKS[self.rank - 1] + self.suit

    @property
    def is_joker(self) -> bool:
        return self.rank == 0

    @property
    def is_red(self) -> bool:
        return self.suit in RED_SUITS or self.suit == "R"

    def __str__(self) -> str:
        return self.code


@functools.lru_cache(maxsize=4096)
def _parse_place(name: str) -> Place:
    return Place._parse(name)


def parse_code(code: str) -> str:
    """Return the canonical form of a card code, or raise :class:`CardCodeError`."""
    return Card.parse(code).code


def new_deck(owner: int, jokers: bool = False) -> list[Card]:
    """A fresh, ordered deck of 52 cards (54 with jokers) belonging to ``owner``."""
    deck = [Card(rank, suit, owner) for suit in SUITS for rank in range(1, 14)]
    if jokers:
        deck += [Card(0, "R", owner), Card(0, "B", owner)]
    return deck


_PLACE_RE = re.compile(r"^(?:lake:(\d+)|seat(\d+):(nertz|waste|stock|river(\d+)))$")


@dataclass(frozen=True, slots=True)
class Place:
    """A place on the table: ``lake:<j>``, ``seat<k>:nertz``, ``seat<k>:river<i>``,
    ``seat<k>:waste`` or ``seat<k>:stock``."""

    kind: str  # "lake", "nertz", "river", "waste", "stock"
    seat: int | None = None
    index: int | None = None

    @classmethod
    def parse(cls, name: str | Place) -> Place:
        if isinstance(name, Place):
            return name
        if isinstance(name, str) and cls is Place:  # (places are few and immutable)
            return _parse_place(name)
        return cls._parse(name)

    @classmethod
    def _parse(cls, name: str) -> Place:
        m = _PLACE_RE.match(name.strip()) if isinstance(name, str) else None
        if m is None:
            raise PlaceError(
                f"not a place name: {name!r} (expected lake:<j>, seat<k>:nertz, "
                "seat<k>:river<i>, seat<k>:waste or seat<k>:stock)"
            )
        lake, seat, kind, river = m.groups()
        if lake is not None:
            return cls("lake", None, int(lake))
        if river is not None:
            return cls("river", int(seat), int(river))
        return cls(kind, int(seat), None)

    @classmethod
    def lake(cls, j: int) -> Place:
        return cls("lake", None, j)

    @classmethod
    def of(cls, seat: int, kind: str, index: int | None = None) -> Place:
        return cls(kind, seat, index)

    @property
    def is_lake(self) -> bool:
        return self.kind == "lake"

    def __str__(self) -> str:
        if self.kind == "lake":
            return f"lake:{self.index}"
        if self.kind == "river":
            return f"seat{self.seat}:river{self.index}"
        return f"seat{self.seat}:{self.kind}"
