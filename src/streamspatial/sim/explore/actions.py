"""The exploration action space of S3-Bench §4.3 and a parser for what models emit.

Seven actions: move forward / left / right by ``d`` metres, rotate left / right 45°, scan
forward (look 45° to each side and back) and sweep around (360°).  Names match the
normalised dicts of ``streamspatial.grading.extract.extract_action``
(``{"action": "move_forward", "distance": 1.5}``, ``{"action": "rotate_left", "angle": 45}``)
so its output goes straight in; this module accepts those dicts, raw JSON text and short
plain phrases ("move forward 1.5 m"), without importing :mod:`streamspatial.scoring`.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from streamspatial.core.errors import InputError

ACTIONS = (
    "move_forward",
    "move_left",
    "move_right",
    "rotate_left",
    "rotate_right",
    "scan_forward",
    "sweep_around",
)
MOVES = frozenset(ACTIONS[:3])
ANGLES = {"rotate_left": 45.0, "rotate_right": 45.0, "scan_forward": 90.0, "sweep_around": 360.0}
MAX_DISTANCE = 5.0

_ALIASES = {
    "forward": "move_forward",
    "move_ahead": "move_forward",
    "go_forward": "move_forward",
    "left": "move_left",
    "strafe_left": "move_left",
    "right": "move_right",
    "strafe_right": "move_right",
    "turn_left": "rotate_left",
    "turn_right": "rotate_right",
    "scan": "scan_forward",
    "scan_forward_90": "scan_forward",
    "sweep": "sweep_around",
    "sweep_360": "sweep_around",
    "look_around": "sweep_around",
}
_NAME_KEYS = ("action", "name", "type", "command")
_DISTANCE_KEYS = ("distance", "d", "meters", "metres", "value", "amount")


@dataclass(frozen=True)
class Action:
    name: str
    distance: float = 0.0  # metres, moves only

    @property
    def index(self) -> int:
        return ACTIONS.index(self.name)

    def to_gym(self) -> dict[str, Any]:
        import numpy as np

        return {"action": self.index, "distance": np.float32(self.distance)}


def _canonical(name: str) -> str | None:
    key = re.sub(r"[^a-z0-9]+", "_", name.strip().lower()).strip("_")
    key = _ALIASES.get(key, key)
    return key if key in ACTIONS else None


def parse_action(obj: Any) -> Action:
    """An :class:`Action` from a model's output: dict, JSON text or a short phrase.

    Raises :class:`~streamspatial.core.errors.InputError` naming what was wrong, so a
    malformed model action can be recorded rather than crash an episode.
    """
    if isinstance(obj, Action):
        return obj
    if isinstance(obj, str):
        text = obj.strip()
        for start in [m.start() for m in re.finditer(r"\{", text)]:
            try:
                value, _ = json.JSONDecoder().raw_decode(text, start)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return parse_action(value)
        return _parse_phrase(text)
    if isinstance(obj, dict):
        if (
            "action" in obj
            and isinstance(obj["action"], int)
            and not isinstance(obj["action"], bool)
        ):
            idx = int(obj["action"])
            if not 0 <= idx < len(ACTIONS):
                raise InputError(f"action index {idx} is not in 0..{len(ACTIONS) - 1}")
            name = ACTIONS[idx]
        else:
            if isinstance(obj.get("action"), dict):
                return parse_action(obj["action"])
            raw = next((obj[k] for k in _NAME_KEYS if isinstance(obj.get(k), str)), None)
            if raw is None:
                raise InputError(f"action has no name (expected one of {', '.join(ACTIONS)})")
            direction = obj.get("direction")
            if isinstance(direction, str) and raw.strip().lower() in ("move", "rotate", "turn"):
                raw = f"{'move' if raw.strip().lower() == 'move' else 'rotate'}_{direction}"
            name = _canonical(raw)
            if name is None:
                raise InputError(f"unknown action {raw!r} (expected one of {', '.join(ACTIONS)})")
        return _with_distance(name, next((obj[k] for k in _DISTANCE_KEYS if k in obj), None))
    raise InputError(f"cannot read an action from {type(obj).__name__}")


def _with_distance(name: str, raw: Any) -> Action:
    if name not in MOVES:
        return Action(name)
    try:
        d = float(raw)
    except (TypeError, ValueError):
        raise InputError(f"action {name} needs a distance in metres, got {raw!r}") from None
    if not math.isfinite(d) or d <= 0 or d > MAX_DISTANCE:
        raise InputError(f"action {name} distance must be in (0, {MAX_DISTANCE}] m, got {d}")
    return Action(name, d)


def _parse_phrase(text: str) -> Action:
    low = text.lower()
    m = re.search(r"(move|go|walk|step|strafe)\s+(forward|ahead|left|right)", low)
    if m:
        direction = "forward" if m.group(2) in ("forward", "ahead") else m.group(2)
        num = re.search(r"(\d+(?:\.\d+)?)\s*(?:m\b|meters?|metres?)?", low[m.end() :])
        return _with_distance(f"move_{direction}", num.group(1) if num else None)
    m = re.search(r"(rotate|turn)\s+(left|right)", low)
    if m:
        return Action(f"rotate_{m.group(2)}")
    if re.search(r"\bscan\b", low):
        return Action("scan_forward")
    if re.search(r"\bsweep\b|look around|360", low):
        return Action("sweep_around")
    raise InputError(f"no exploration action found in {text[:60]!r}")
