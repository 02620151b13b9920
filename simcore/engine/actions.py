"""What the Gymnasium environments do with an action of their space that is not valid at the
pending decision (an empty slot, an inadmissible level): Gymnasium's contract is that `step`
accepts every element of `action_space`, so an agent without masks never crashes
(docs/environments.md, "Invalid actions").

- ``"first_valid"`` (the default): the first valid action is taken instead, as if the agent had
  picked the head of the window (or, in co-scheduling, level 0: no pair);
- ``"skip"``: nothing happens; the same decision comes back with reward ``-invalid_penalty``;
- ``"raise"``: a ValueError naming the valid actions (for debugging an agent that masks).

Every invalid action is counted in ``info["invalid_actions"]``. A masked agent never takes one,
so its runs are the same in every mode.
"""

from __future__ import annotations

import numpy as np

INVALID_ACTIONS = ("first_valid", "skip", "raise")


def check_invalid_action(mode: str, penalty: float) -> float:
    """The penalty as a float, after checking the mode and the penalty (a one-line error each)."""
    if mode not in INVALID_ACTIONS:
        raise ValueError(f"invalid_action {mode!r}: choose one of {', '.join(INVALID_ACTIONS)}")
    penalty = float(penalty)
    if not np.isfinite(penalty) or penalty < 0:
        raise ValueError(f"invalid_penalty {penalty}: a finite cost >= 0")
    return penalty


def carried_out(action, space, mask: np.ndarray, mode: str) -> tuple[int | None, bool]:
    """(the action step carries out, whether `action` was invalid here): `action` itself when the
    mask allows it; else the first valid action (first_valid) or None (skip: no decision is made).
    An element outside `space` is a ValueError in every mode."""
    if isinstance(action, (int, np.integer)) and 0 <= action < len(mask) and mask[action]:
        return int(action), False  # the common case, first: a valid action costs one look-up
    if not space.contains(action):
        raise ValueError(f"action {action!r} is not in the action space {space}")
    action = int(action)
    valid = np.flatnonzero(mask)
    if mode == "raise":
        raise ValueError(f"action {action} is not valid here; valid actions: {valid.tolist()}")
    return (int(valid[0]) if mode == "first_valid" else None), True
