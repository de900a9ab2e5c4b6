"""Actions a seat (or the table) can take, and their event-log form (DESIGN.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import Card, CardCodeError, Place, PlaceError


@dataclass(frozen=True, slots=True)
class Move:
    """Move ``n`` cards (``card`` is the deepest of them) from ``src`` to ``dst``.

    ``under`` slides the card under a river column (``slide_under``); ``declared`` is the
    card a joker stands for when it goes to the lake (``jokers``). ``lost``: the card had
    left ``src`` earlier for a place nobody saw (:class:`Unseen`) and shows again now; it
    comes from the seat's lost cards, not from the top of ``src`` (a referee's record).
    ``hidden``: the card reached ``dst`` unseen from where the seat held it face down or
    covered (``src``: its nertz pile, stock or waste, anywhere in it), known only because
    the cards built on it show it went there (a referee's record).
    """

    seat: int
    card: str
    src: str
    dst: str
    n: int = 1
    under: bool = False
    declared: str | None = None
    lost: bool = False
    hidden: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "card", Card.parse(self.card).code)
        object.__setattr__(self, "src", str(Place.parse(self.src)))
        object.__setattr__(self, "dst", str(Place.parse(self.dst)))
        if self.lost and (self.n != 1 or self.under):
            raise ValueError("a lost card comes back one card at a time, not slid under")
        if self.hidden and (self.n != 1 or self.under or self.lost or
                            Place.parse(self.src).kind not in ("nertz", "stock", "waste")):
            raise ValueError("a hidden card goes one at a time from a nertz pile, stock or "
                             "waste")
        if self.declared is not None:
            object.__setattr__(self, "declared", Card.parse(self.declared).code)
        _check_seat(self.seat)
        if not isinstance(self.n, int) or self.n < 1:
            raise ValueError(f"run length n must be a positive integer, got {self.n!r}")

    @property
    def source(self) -> Place:
        return Place.parse(self.src)

    @property
    def target(self) -> Place:
        return Place.parse(self.dst)

    def __str__(self) -> str:
        run = f" (run of {self.n})" if self.n > 1 else ""
        lost = " (lost from there unseen before)" if self.lost else ""
        hidden = " (from among its hidden cards, unseen)" if self.hidden else ""
        return f"seat{self.seat} {self.card}{run} {self.src} -> {self.dst}{lost}{hidden}"


@dataclass(frozen=True, slots=True)
class Draw:
    """Turn ``draw`` cards (or what is left) from the stock onto the waste."""

    seat: int

    def __str__(self) -> str:
        return f"seat{self.seat} draws"


@dataclass(frozen=True, slots=True)
class Recycle:
    """Turn the waste over (unshuffled) into a new stock."""

    seat: int

    def __str__(self) -> str:
        return f"seat{self.seat} recycles the waste"


@dataclass(frozen=True, slots=True)
class Rotate:
    """Move the top stock card to the bottom of the stock (a stuck player)."""

    seat: int

    def __str__(self) -> str:
        return f"seat{self.seat} rotates the stock"


@dataclass(frozen=True, slots=True)
class Retract:
    """The owner takes a misplaced card back from the lake (RULES.md)."""

    seat: int
    card: str
    src: str
    dst: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "card", Card.parse(self.card).code)
        object.__setattr__(self, "src", str(Place.parse(self.src)))
        object.__setattr__(self, "dst", str(Place.parse(self.dst)))
        _check_seat(self.seat)

    def __str__(self) -> str:
        return f"seat{self.seat} takes {self.card} back {self.src} -> {self.dst}"


@dataclass(frozen=True, slots=True)
class Unseen:
    """A card left the top of one of a seat's places for a place nobody saw: a referee's
    record, not a play (the camera saw the pile empty, not where its cards went). The card
    leaves the layout and scores nowhere: not in the lake, no longer in the nertz pile. It
    joins the seat's lost cards, from which a later ``Move(..., lost=True)`` may bring it
    back when it shows again."""

    seat: int
    card: str
    src: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "card", Card.parse(self.card).code)
        place = Place.parse(self.src)
        if place.seat is None or place.kind not in ("nertz", "waste", "river"):
            raise PlaceError(f"an unseen card leaves a seat's nertz pile, waste or river "
                             f"column, not {self.src}")
        object.__setattr__(self, "src", str(place))
        _check_seat(self.seat)

    def __str__(self) -> str:
        return f"seat{self.seat}'s {self.card} left {self.src} unseen"


@dataclass(frozen=True, slots=True)
class Call:
    """A seat calls "Nertz!"; true when its nertz pile is empty, else a false call."""

    seat: int

    def __str__(self) -> str:
        return f"seat{self.seat} calls"


@dataclass(frozen=True, slots=True)
class SetAside:
    """A finished foundation (King on top) is set aside; its cards still score."""

    place: str

    def __post_init__(self) -> None:
        place = Place.parse(self.place)
        if not place.is_lake:
            raise PlaceError(f"only a lake foundation can be set aside, not {self.place}")
        object.__setattr__(self, "place", str(place))

    def __str__(self) -> str:
        return f"{self.place} set aside"


@dataclass(frozen=True, slots=True)
class Pass:
    """End one's turn without drawing (``turn_based`` only)."""

    seat: int

    def __str__(self) -> str:
        return f"seat{self.seat} passes"


@dataclass(frozen=True, slots=True)
class EndRound:
    """The round ends without a call: every player stuck (``stall``) or by agreement."""

    reason: str = "stall"

    def __post_init__(self) -> None:
        if self.reason not in ("stall", "abandon"):
            raise ValueError(f"round end reason must be stall or abandon, got {self.reason!r}")

    def __str__(self) -> str:
        return f"round ends ({self.reason})"


Action = (Move | Draw | Recycle | Rotate | Retract | Call | SetAside | Pass | EndRound
          | Unseen)


def _check_seat(seat: Any) -> None:
    if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0:
        raise ValueError(f"seat must be a non-negative integer, got {seat!r}")


def action_to_event(action: Action, t_ms: int) -> dict[str, Any]:
    """The event-log line of an action (without flags or scores)."""
    match action:
        case Move():
            event = {"type": "move", "t_ms": t_ms, "seat": action.seat, "card": action.card,
                     "from": action.src, "to": action.dst, "n": action.n}
            if action.under:
                event["under"] = True
            if action.declared:
                event["declared"] = action.declared
            if action.lost:
                event["lost"] = True
            if action.hidden:
                event["hidden"] = True
            return event
        case Retract():
            return {"type": "retract", "t_ms": t_ms, "seat": action.seat, "card": action.card,
                    "from": action.src, "to": action.dst}
        case Draw():
            return {"type": "draw", "t_ms": t_ms, "seat": action.seat}
        case Recycle():
            return {"type": "recycle", "t_ms": t_ms, "seat": action.seat}
        case Rotate():
            return {"type": "rotate", "t_ms": t_ms, "seat": action.seat}
        case Call():
            return {"type": "call", "t_ms": t_ms, "seat": action.seat}
        case Pass():
            return {"type": "pass", "t_ms": t_ms, "seat": action.seat}
        case SetAside():
            return {"type": "set_aside", "t_ms": t_ms, "place": action.place}
        case EndRound():
            return {"type": "round_end", "t_ms": t_ms, "reason": action.reason}
        case Unseen():
            return {"type": "unseen", "t_ms": t_ms, "seat": action.seat, "card": action.card,
                    "from": action.src}
    raise TypeError(f"not an action: {action!r}")


ACTION_TYPES = ("move", "retract", "draw", "recycle", "rotate", "call", "pass", "set_aside",
                "unseen")


def action_from_event(event: dict[str, Any]) -> Action:
    """Parse an event-log line into an action; raises ``ValueError`` naming what is wrong."""
    kind = event.get("type")
    try:
        match kind:
            case "move":
                return Move(event["seat"], event["card"], event["from"], event["to"],
                            event.get("n", 1), bool(event.get("under", False)),
                            event.get("declared"), bool(event.get("lost", False)),
                            bool(event.get("hidden", False)))
            case "retract":
                return Retract(event["seat"], event["card"], event["from"], event["to"])
            case "draw":
                return Draw(_seat(event))
            case "recycle":
                return Recycle(_seat(event))
            case "rotate":
                return Rotate(_seat(event))
            case "call":
                return Call(_seat(event))
            case "pass":
                return Pass(_seat(event))
            case "set_aside":
                return SetAside(event["place"])
            case "unseen":
                return Unseen(event["seat"], event["card"], event["from"])
    except KeyError as exc:
        raise ValueError(f"{kind} event lacks the field {exc.args[0]!r}") from None
    except (CardCodeError, PlaceError):
        raise
    raise ValueError(f"not an action event type: {kind!r}")


def _seat(event: dict[str, Any]) -> int:
    seat = event["seat"]
    _check_seat(seat)
    return seat
