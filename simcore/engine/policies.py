"""What a scheduler is: one `Policy` value (queue order, threshold, backfill, reservation depth,
MULTIFACTOR's parameters, FUNCTION's priority function), checked once when it is made, described
and recorded one way. `simulate` and `Simulation` run one; configuration and JSON give one by
`Policy.of(mapping)`, a command line by `add_policy_arguments` and `Policy.from_args`. Named
policies (`check_policies`) are a configuration's schedulers sites run, EASY-FCFS (order FCFS and
nothing else) among them the baseline of every comparison."""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass

import numpy as np

from simcore.engine import _core, _orders
from simcore.engine.priority import THESIS_FUNCTIONS, Multifactor, PriorityFunction

ORDERS = tuple(_orders.ORDER_NAMES)
BANDIT_ORDERS = ORDERS[: _orders.BANDIT_ORDER_COUNT]  # the bandit paper's 12, its learners' candidates
ORDER_MEANINGS = dict(_orders.ORDER_MEANINGS)
NAMED_ORDERS = tuple(order for order in ORDERS if order != "FUNCTION")  # need nothing but their name (or defaults)
BACKFILLS = ("none", "queue") + NAMED_ORDERS
# The keys of a policy's mapping (configuration, JSON)
KEYS = ("order", "threshold", "backfill", "reservations", "multifactor")
# A command's --policies option: named policies as JSON (check_policies)
POLICIES_HELP = '{name: {order, threshold, backfill, reservations, multifactor}}, one of them {"order": "FCFS"}'


def order_code(name: str) -> int:
    try:
        return ORDERS.index(name)
    except ValueError:
        raise ValueError(f"unknown queue order {name!r}; choose one of {', '.join(ORDERS)}") from None


def backfill_code(name: str) -> int:
    if name == "none":
        return _core.BACKFILL_NONE
    if name == "queue":
        return _core.BACKFILL_QUEUE
    if name in ORDERS:
        return ORDERS.index(name)
    raise ValueError(f"unknown backfill variant {name!r}; choose none, queue or an order ({', '.join(ORDERS)})")


def check_threshold(threshold) -> float | None:
    if threshold is None:
        return None
    threshold = float(threshold)
    if not threshold >= 0 or not np.isfinite(threshold):
        raise ValueError(f"threshold must be a finite number of seconds >= 0, got {threshold}")
    return threshold


def reservation_depth(reservations) -> int:
    """The core's code of a reservation depth (docs/semantics.md, "Reservation depth"): an int >= 0, or "all" (-1)."""
    if reservations == "all":
        return -1
    if isinstance(reservations, bool) or not isinstance(reservations, (int, np.integer)) or reservations < 0:
        raise ValueError(f"reservations {reservations!r}: a depth >= 0 (0: no backfilling, 1: EASY) or 'all'")
    return int(reservations)


@dataclass(frozen=True)
class Policy:
    """A scheduler: EASY(order, threshold) with its backfill (none, queue or an order: SPF is
    EASY-SJBF), reservation depth (docs/semantics.md, "Reservation depth": 0 no backfilling,
    1 EASY, k, or "all", conservative backfilling; a depth of 2 or more backfills in the queue
    order), MULTIFACTOR's parameters (a Multifactor or a mapping of its fields; kept whenever
    given, so that a period switch to MULTIFACTOR finds the fair share tracked from the start;
    its defaults when MULTIFACTOR is the order or the backfill) and the order FUNCTION's
    priority function. Every check is made here, once: a ValueError says what is wrong."""

    order: str = "FCFS"
    threshold: float | None = None
    backfill: str = "queue"
    reservations: int | str = 1
    multifactor: Multifactor | None = None
    function: PriorityFunction | None = None

    def __post_init__(self):
        order_code(self.order)
        backfill_code(self.backfill)
        object.__setattr__(self, "threshold", check_threshold(self.threshold))
        depth = reservation_depth(self.reservations)
        object.__setattr__(self, "reservations", "all" if depth == -1 else depth)
        if depth not in (0, 1) and self.backfill != "queue":
            raise ValueError(
                f"reservations {self.reservations}: a depth of 2 or more backfills in the queue order "
                "(backfill 'queue')"
            )
        if self.multifactor is not None or "MULTIFACTOR" in (self.order, self.backfill):
            object.__setattr__(self, "multifactor", Multifactor.of(self.multifactor))
        if self.function is None and "FUNCTION" in (self.order, self.backfill):
            raise ValueError(
                "the order FUNCTION needs a priority function: "
                "function=simcore.engine.priority.PriorityFunction(form, theta)"
            )
        if self.function is not None and not isinstance(self.function, PriorityFunction):
            raise ValueError(f"function must be a simcore.engine.priority.PriorityFunction, got {self.function!r}")

    @classmethod
    def of(cls, given, where: str = "policy") -> Policy:
        """From a Policy, or a mapping of KEYS (a configuration's, JSON's: at least `order`); a
        ValueError names `where`, the key and what is wrong."""
        if isinstance(given, cls):
            return given
        if not isinstance(given, dict) or "order" not in given:
            raise ValueError(f"{where}: a mapping with at least `order`, got {given!r}")
        unknown = sorted(set(given) - set(KEYS))
        if unknown:
            raise ValueError(f"{where}.{unknown[0]}: not an option; known are {', '.join(KEYS)}")
        if given["order"] not in NAMED_ORDERS:
            raise ValueError(f"{where}.order: {given['order']!r} is not a queue order ({', '.join(NAMED_ORDERS)})")
        if given.get("backfill", "queue") not in BACKFILLS:
            raise ValueError(f"{where}.backfill: {given['backfill']!r} is none, queue or an order")
        try:
            return cls(**given)
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None

    @classmethod
    def from_args(cls, args) -> Policy:
        """The policy of add_policy_arguments's options (a thesis function by its name is FUNCTION)."""
        function = THESIS_FUNCTIONS.get(args.policy)
        return cls(
            order="FUNCTION" if function else args.policy,
            threshold=args.threshold,
            backfill=args.backfill,
            reservations=args.reservations,
            multifactor=None if args.multifactor is None else dict(args.multifactor),
            function=function,
        )

    def with_order(self, order: str) -> Policy:
        """This policy under another queue order (a learner's period, a fixed-order comparison)."""
        return dataclasses.replace(self, order=order)

    def tracking_fair_share(self) -> Policy:
        """This policy with MULTIFACTOR's parameters (its own, else the defaults): the fair share
        is tracked from the start, so that a switch to MULTIFACTOR later finds it."""
        return dataclasses.replace(self, multifactor=self.multifactor or Multifactor())

    @property
    def depth(self) -> int:
        """The core's code of the reservation depth (-1: all)."""
        return reservation_depth(self.reservations)

    def core_arguments(self) -> dict:
        """The event loop's arguments (simcore/engine/_core.pyx's Simulation) for this policy."""
        return {
            "order": order_code(self.order),
            "threshold": self.threshold,
            "backfill": backfill_code(self.backfill),
            "function": None if self.function is None else self.function.params(),
            "reservations": self.depth,
            "multifactor": None if self.multifactor is None else self.multifactor.params(),
        }

    def provenance(self, **run) -> dict:
        """The options outputs record: order, threshold, backfill, the run's own (estimate and
        correction), then the function, a depth other than EASY's and the MULTIFACTOR parameters
        where they apply (EASY's outputs are as before the depth existed)."""
        options = {"order": self.order, "threshold": self.threshold, "backfill": self.backfill, **run}
        if self.function is not None:
            options["function"] = str(self.function)
        if self.depth != 1:
            options["reservations"] = self.reservations
        if self.multifactor is not None:
            options["multifactor"] = str(self.multifactor)
        return options

    def columns(self) -> dict:
        """The policy as a results table's columns: order, threshold (NaN: none), backfill, the
        depth as text, the MULTIFACTOR parameters ("" without)."""
        return {
            "order": self.order,
            "threshold": np.nan if self.threshold is None else self.threshold,
            "backfill": self.backfill,
            "reservations": str(self.reservations),
            "multifactor": "" if self.multifactor is None else str(self.multifactor),
        }

    def describe(self) -> str:
        """A phrase: order, threshold, backfill, depth, multifactor weights."""
        if self.function is not None:
            parts = [f"FUNCTION {self.function}"]
        else:
            parts = [str(self.multifactor) if self.order == "MULTIFACTOR" else self.order]
        if self.threshold is not None:
            parts.append(f"threshold {self.threshold:g} s")
        if self.backfill != "queue":
            parts.append(f"backfill {self.backfill}")
        parts.append({0: "no backfilling", 1: "EASY", -1: "conservative"}.get(self.depth, f"{self.depth} reservations"))
        return ", ".join(parts)


EASY_FCFS = Policy()  # the baseline of every comparison


def any_case(names):
    """argparse type for `choices=names`: a name in any case (spf: SPF); argparse rejects
    what matches none."""
    by_lower = {name.lower(): name for name in names}

    def canonical(text: str) -> str:
        return by_lower.get(text.lower(), text)

    return canonical


def threshold_argument(text: str) -> float:
    """argparse type: seconds >= 0."""
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds >= 0, got {text}")
    return value


def optional_threshold(text: str):
    """argparse type: seconds >= 0, or `none`."""
    return None if text.lower() == "none" else threshold_argument(text)


def reservations_argument(text: str):
    """--reservations: an integer depth >= 0 or `all`."""
    if text.lower() == "all":
        return "all"
    try:
        return reservation_depth(int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: a depth >= 0 (0: no backfilling, 1: EASY) or all") from None


def multifactor_argument(text: str) -> tuple[str, object]:
    """One --multifactor KEY=VALUE: a number, or true/false for favor_small (checked by Multifactor)."""
    key, equals, value = text.partition("=")
    if not equals:
        raise argparse.ArgumentTypeError(f"{text!r}: KEY=VALUE, e.g. weight_fairshare=10000")
    if key == "favor_small":
        if value.lower() not in ("true", "false"):
            raise argparse.ArgumentTypeError(f"{text!r}: favor_small is true or false")
        return key, value.lower() == "true"
    try:
        return key, float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: {key} takes a number") from None


def add_policy_arguments(parser: argparse.ArgumentParser) -> None:
    """A policy's options on a command line: --policy (or --order), --threshold, --backfill,
    --reservations, --multifactor (Policy.from_args reads them)."""
    orders = NAMED_ORDERS + tuple(THESIS_FUNCTIONS)
    parser.add_argument(
        "--policy",
        "--order",  # the word of the README and of simulate(order=...)
        dest="policy",
        choices=orders,
        type=any_case(orders),
        default="FCFS",
        metavar="ORDER",
        help=f"queue order, one of {', '.join(NAMED_ORDERS)}, or one of the thesis's functions "
        f"{', '.join(THESIS_FUNCTIONS)}, in any case (default: FCFS)",
    )
    parser.add_argument(
        "--threshold",
        type=threshold_argument,
        metavar="SECONDS",
        help="jobs waiting longer than this go first (default: none)",
    )
    parser.add_argument(
        "--backfill",
        choices=BACKFILLS,
        type=any_case(BACKFILLS),
        default="queue",
        metavar="none|queue|ORDER",
        help="backfill in queue order (default), not at all, or by an order (SPF = EASY-SJBF)",
    )
    parser.add_argument(
        "--reservations",
        type=reservations_argument,
        default=1,
        metavar="D|all",
        help="reservation depth: 0 no backfilling, 1 EASY (default), k, or all (conservative backfilling)",
    )
    parser.add_argument(
        "--multifactor",
        nargs="+",
        type=multifactor_argument,
        metavar="KEY=VALUE",
        help="parameters of the order MULTIFACTOR (weight_age, weight_fairshare, weight_job_size, max_age, "
        "decay_half_life, calc_period in s, favor_small=true|false; default: Slurm's defaults, "
        "docs/semantics.md)",
    )


def check_policies(policies: dict, key: str) -> dict:
    """The named policies of a configuration's `key`, each checked by Policy.of (a ValueError
    names `key`, the policy and the option), EASY-FCFS among them; returned as the mappings
    configuration and JSON hold ({} for none)."""
    if not policies:
        return {}
    checked = {name: Policy.of(options, f"{key}.{name}") for name, options in policies.items()}
    if EASY_FCFS not in checked.values():
        raise ValueError(f"{key}: one policy must be EASY-FCFS, {{'order': 'FCFS'}} and nothing else (the baseline)")
    return {name: dict(options) for name, options in policies.items()}


def baseline_name(policies: dict) -> str:
    """The name of the EASY-FCFS policy among checked ones."""
    return next(name for name, options in policies.items() if Policy.of(options) == EASY_FCFS)


def describe_policies(policies: dict) -> str:
    """Named policies as one Markdown sentence: `**name** phrase; ...`."""
    return "; ".join(f"**{name}** {Policy.of(options).describe()}" for name, options in policies.items())
