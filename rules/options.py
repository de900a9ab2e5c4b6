"""House rules: every option of RULES.md as one validated, typed settings object."""

from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any


class RulesError(ValueError):
    """An unknown option, a bad value or an unknown preset."""


_CHOICES: dict[str, tuple[Any, ...]] = {
    "river_columns": (4, 5, 6),
    "empty_column_fill": ("any", "nertz_first"),
    "draw": (1, 3),
    "tie_rule": ("bottom", "top", "both"),
    "call_bonus": (0, 5, 10, 25),
    "tiebreak": ("round_score", "extra_round"),
    "stall_rule": ("score", "abandon"),
}


@dataclass(frozen=True)
class HouseRules:
    """All house-rule options (names as in RULES.md). Defaults are the ``nertz`` preset."""

    river_columns: int = 4
    empty_column_fill: str = "any"
    slide_under: bool = False
    draw: int = 3
    redeals: int | None = None  # None = unlimited
    stall_timeout_s: float | None = None  # None = no automatic end of a stalled round
    stall_rule: str = "score"  # a stalled round is scored ("score") or abandoned
    call_grace_ms: int = 0
    must_call: bool = True
    false_call_penalty: int = -5
    tie_rule: str = "bottom"
    nertz_penalty: int = 2
    call_bonus: int = 0
    target: int = 100
    fixed_rounds: int | None = None
    tiebreak: str = "round_score"
    teams: bool = False
    jokers: bool = False
    turn_based: bool = False
    retract_window_ms: int = 5000  # a misplacement taken back within this is "corrected"
    call_word: str = "Nertz!"
    preset_name: str = "nertz"  # written as "preset" in dicts and TOML

    def __post_init__(self) -> None:
        for name, choices in _CHOICES.items():
            value = getattr(self, name)
            if value not in choices or isinstance(value, bool) and not isinstance(
                choices[0], bool
            ):
                raise RulesError(
                    f"option {name}: {value!r} is not one of {', '.join(map(repr, choices))}"
                )
        for name in ("slide_under", "must_call", "teams", "jokers", "turn_based"):
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"option {name}: {getattr(self, name)!r} is not true/false")
        _int(self, "call_grace_ms", lo=0)
        _int(self, "retract_window_ms", lo=0)
        _int(self, "nertz_penalty", lo=0)
        _int(self, "false_call_penalty", hi=0)
        _int(self, "target", lo=1)
        if self.redeals is not None:
            _int(self, "redeals", lo=0)
        if self.fixed_rounds is not None:
            _int(self, "fixed_rounds", lo=1)
        if self.stall_timeout_s is not None and (
            isinstance(self.stall_timeout_s, bool)
            or not isinstance(self.stall_timeout_s, int | float)
            or self.stall_timeout_s <= 0
        ):
            raise RulesError(
                f"option stall_timeout_s: {self.stall_timeout_s!r} is not a positive number"
            )
        if not isinstance(self.call_word, str) or not self.call_word:
            raise RulesError(f"option call_word: {self.call_word!r} is not a word")
        if self.preset_name not in PRESETS:
            raise RulesError(f"option preset: unknown preset {self.preset_name!r}")

    # --- construction ---------------------------------------------------------------
    @classmethod
    def preset(cls, name: str, **overrides: Any) -> HouseRules:
        """The options of a named preset of RULES.md, with optional overrides."""
        if name not in PRESETS:
            raise RulesError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}")
        values = {**PRESETS[name], **overrides}
        return cls.from_dict(values, base=cls(preset_name=name))

    @classmethod
    def from_dict(cls, values: dict[str, Any], base: HouseRules | None = None) -> HouseRules:
        """Build from a mapping of option names; a ``preset`` key picks the base preset."""
        known = {f.name for f in fields(cls)} - {"preset_name"} | {"preset"}
        values = dict(values)
        unknown = sorted(set(values) - known)
        if unknown:
            raise RulesError(
                f"unknown house-rule option {unknown[0]!r}; known: {', '.join(sorted(known))}"
            )
        if base is None:
            preset = values.pop("preset", "nertz")
            if not isinstance(preset, str):
                raise RulesError(f"option preset: {preset!r} is not a preset name")
            base = cls.preset(preset)
        else:
            values.pop("preset", None)
        for nullable in ("redeals", "fixed_rounds", "stall_timeout_s"):
            if values.get(nullable) in ("unlimited", "none", "off"):
                values[nullable] = None
        try:
            return replace(base, **values)
        except TypeError as exc:  # pragma: no cover - replace() only fails on names
            raise RulesError(str(exc)) from None

    @classmethod
    def from_toml(cls, path: str | Path) -> HouseRules:
        """Load from a TOML file: top-level keys, or a ``[rules]`` table."""
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise RulesError(f"{path}: not valid TOML: {exc}") from None
        if "rules" in data and isinstance(data["rules"], dict):
            data = data["rules"]
        return cls.from_dict(data)

    def to_dict(self) -> dict[str, Any]:
        """Every option by name (``None`` written as JSON null), the preset first."""
        data = asdict(self)
        return {"preset": data.pop("preset_name"), **data}

    def to_toml(self) -> str:
        lines = []
        for key, value in self.to_dict().items():
            if value is None:
                value = "unlimited" if key == "redeals" else "off"
            if isinstance(value, bool):
                lines.append(f"{key} = {'true' if value else 'false'}")
            elif isinstance(value, str):
                lines.append(f'{key} = "{value}"')
            else:
                lines.append(f"{key} = {value}")
        return "\n".join(lines) + "\n"

    # --- derived --------------------------------------------------------------------
    def team_of(self, seat: int) -> int:
        """Team index of a seat (teams are seats 0+1, 2+3, …), or the seat itself."""
        return seat // 2 if self.teams else seat

    @property
    def deck_size(self) -> int:
        return 54 if self.jokers else 52


def _int(rules: HouseRules, name: str, lo: int | None = None, hi: int | None = None) -> None:
    value = getattr(rules, name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"option {name}: {value!r} is not an integer")
    if lo is not None and value < lo:
        raise RulesError(f"option {name}: {value} is below {lo}")
    if hi is not None and value > hi:
        raise RulesError(f"option {name}: {value} is above {hi}")


#: The presets of RULES.md as option overrides of the default ``nertz`` table.
PRESETS: dict[str, dict[str, Any]] = {
    "nertz": {},
    "racing-demon": {"fixed_rounds": 5, "call_word": "Out!", "tiebreak": "extra_round"},
    "pounce": {
        "river_columns": 5,
        "nertz_penalty": 0,
        "must_call": False,
        "slide_under": True,
        "tie_rule": "both",
        "call_grace_ms": 500,
    },
    "single-draw": {"draw": 1},
    "klondike-draw": {"draw": 1, "redeals": 1},
    "teams": {"teams": True},
    "jokers": {"jokers": True},
    "turn-based": {"turn_based": True},
}
