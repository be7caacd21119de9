"""The bot's tuned numbers, kept in a data file beside this module: read relative to it, since the
bot's folder is not the current directory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypedDict

WEIGHTS_FILE = Path(__file__).parent / "weights.json"


class Weights(TypedDict):
    keep_open: float  # points one more round with the line open is worth
    keep_horizon: int  # rounds ahead that keeping a line open counts for
    room_scale: float  # numbers left beyond a line's last card worth one point
    hand_fit: float  # a hand card that fits the line
    hand_loose: float  # a hand card that does not
    jackpot_share: float  # the share of a jackpot we expect to win with a colour's third card


def load_weights() -> Weights:
    weights: Weights = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
    return weights
