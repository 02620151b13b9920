"""Named policies: a name for a set of simulate()'s options (order, threshold, backfill,
reservations, multifactor), as the configuration gives the schedulers sites run; EASY-FCFS (order
FCFS and nothing else) among them is the baseline of every comparison."""

from __future__ import annotations

from simcore.engine.priority import Multifactor
from simcore.engine.simulation import BACKFILLS, NAMED_ORDERS, check_threshold, reservation_depth

KEYS = ("order", "threshold", "backfill", "reservations", "multifactor")
BASELINE = {"order": "FCFS"}


def check_policies(policies: dict, key: str) -> dict:
    """The policies with their options checked (a ValueError names `key`, the policy and the
    option) and EASY-FCFS among them; {} for none."""
    if not policies:
        return {}
    checked = {}
    for name, options in policies.items():
        where = f"{key}.{name}"
        if not isinstance(options, dict) or "order" not in options:
            raise ValueError(f"{where}: a mapping with at least `order`, got {options!r}")
        unknown = sorted(set(options) - set(KEYS))
        if unknown:
            raise ValueError(f"{where}.{unknown[0]}: not an option; known are {', '.join(KEYS)}")
        if options["order"] not in NAMED_ORDERS:
            raise ValueError(f"{where}.order: {options['order']!r} is not a queue order ({', '.join(NAMED_ORDERS)})")
        if options.get("backfill", "queue") not in BACKFILLS:
            raise ValueError(f"{where}.backfill: {options['backfill']!r} is none, queue or an order")
        try:
            check_threshold(options.get("threshold"))
            depth = reservation_depth(options.get("reservations", 1))
            if depth not in (0, 1) and options.get("backfill", "queue") != "queue":
                raise ValueError("reservations: a depth of 2 or more backfills in the queue order (backfill queue)")
            if "multifactor" in options:
                Multifactor.of(options["multifactor"])
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
        checked[name] = dict(options)
    if BASELINE not in checked.values():
        raise ValueError(f"{key}: one policy must be EASY-FCFS, {BASELINE} and nothing else (the baseline)")
    return checked


def baseline_name(policies: dict) -> str:
    return next(name for name, options in policies.items() if options == BASELINE)


def describe(options: dict) -> str:
    """A policy's options as a phrase: order, threshold, backfill, depth, multifactor weights."""
    parts = [options["order"] if options["order"] != "MULTIFACTOR" else str(Multifactor.of(options.get("multifactor")))]
    if options.get("threshold") is not None:
        parts.append(f"threshold {options['threshold']:g} s")
    if options.get("backfill", "queue") != "queue":
        parts.append(f"backfill {options['backfill']}")
    depth = options.get("reservations", 1)
    parts.append({0: "no backfilling", 1: "EASY", "all": "conservative"}.get(depth, f"{depth} reservations"))
    return ", ".join(parts)
