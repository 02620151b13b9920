"""Priority functions of the thesis's chapter 3 (seed 004): the family
(θ1 φ1(p)) op1 (θ2 φ2(q)) op2 (θ3 φ3(r)), φ in {identity, sqrt, log10,
inverse}, op in {+, ×, ÷}, with the usual precedence. A PriorityFunction is
one member with its coefficients; the core's FUNCTION order schedules by it
(smallest value first), with p read as the job's current estimate.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

BASES = {"id": lambda x: x, "sqrt": np.sqrt, "log": np.log10, "inv": lambda x: 1.0 / x}
OPERATORS = ("+", "*", "/")
BASE_NAMES = {"id": "{}", "sqrt": "sqrt({})", "log": "log10({})", "inv": "1/{}"}


def _combine(a, b, op):
    return a + b if op == "+" else a * b if op == "*" else a / b


def bases(form, p, q, r):
    """φ1(p), φ2(q), φ3(r), each variable floored at 1 first."""
    return tuple(BASES[phi](np.maximum(x, 1.0)) for phi, x in zip(form[:3], (p, q, r)))


def combine(form, theta, based):
    """(θ1 b1) op1 (θ2 b2) op2 (θ3 b3) of the `bases` b with the usual precedence
    (× and ÷ before +, left to right)."""
    op1, op2 = form[3:]
    terms = [theta[0] * based[0], theta[1] * based[1], theta[2] * based[2]]
    if op1 == "+" and op2 != "+":
        return terms[0] + _combine(terms[1], terms[2], op2)
    return _combine(_combine(terms[0], terms[1], op1), terms[2], op2)


def evaluate(form, theta, p, q, r):
    """(θ1 φ1(p)) op1 (θ2 φ2(q)) op2 (θ3 φ3(r)); p, q, r are floored at 1 first."""
    return combine(form, theta, bases(form, p, q, r))


def describe(form, theta) -> str:
    phi1, phi2, phi3, op1, op2 = form
    parts = [
        f"{theta[k]:.3g}·" + BASE_NAMES[phi].format(var) for k, (phi, var) in enumerate(zip((phi1, phi2, phi3), "pqr"))
    ]
    symbols = {"+": " + ", "*": " × ", "/": " ÷ "}
    return f"({parts[0]}){symbols[op1]}({parts[1]}){symbols[op2]}({parts[2]})"


@dataclass(frozen=True)
class PriorityFunction:
    """One member of the family: form (φ1, φ2, φ3, op1, op2) and θ."""

    form: tuple
    theta: tuple

    def __post_init__(self):
        form, theta = tuple(self.form), tuple(float(x) for x in self.theta)
        if len(form) != 5 or any(phi not in BASES for phi in form[:3]) or any(op not in OPERATORS for op in form[3:]):
            raise ValueError(
                f"a priority function's form is (φ1, φ2, φ3, op1, op2) with φ in "
                f"{', '.join(BASES)} and op in {' '.join(OPERATORS)}; got {form!r}"
            )
        if len(theta) != 3 or not np.all(np.isfinite(theta)):
            raise ValueError(f"a priority function has three finite coefficients, got {self.theta!r}")
        object.__setattr__(self, "form", form)
        object.__setattr__(self, "theta", theta)

    def params(self) -> tuple:
        """The core's encoding: φ codes, op codes, θ (simcore/engine/_orders.pyx)."""
        bases = list(BASES)
        return (
            *(float(bases.index(phi)) for phi in self.form[:3]),
            *(float(OPERATORS.index(op)) for op in self.form[3:]),
            *self.theta,
        )

    def __call__(self, p, q, r):
        return evaluate(self.form, self.theta, p, q, r)

    def __str__(self) -> str:
        return describe(self.form, self.theta)


# The thesis's Table 3.2, its four best functions as it prints them.
THESIS_FUNCTIONS = {
    "F1": PriorityFunction(("log", "id", "log", "*", "+"), (1.0, 1.0, 8.70e2)),
    "F2": PriorityFunction(("sqrt", "id", "log", "*", "+"), (1.0, 1.0, 2.56e4)),
    "F3": PriorityFunction(("id", "id", "log", "*", "+"), (1.0, 1.0, 6.86e6)),
    "F4": PriorityFunction(("id", "sqrt", "log", "*", "+"), (1.0, 1.0, 5.30e5)),
}


@dataclass(frozen=True)
class Multifactor:
    """The parameters of the order MULTIFACTOR, a multifactor priority after Slurm's, not its exact
    formula (docs/semantics.md, "Multifactor priority"; the slurm.conf keys they stand for:
    PriorityWeightAge, PriorityWeightFairshare, PriorityWeightJobSize, PriorityMaxAge,
    PriorityDecayHalfLife, PriorityCalcPeriod and PriorityFavorSmall; times in seconds). Defaults as
    the contract's."""

    weight_age: float = 1000
    weight_fairshare: float = 1000
    weight_job_size: float = 1000
    max_age: float = 7 * 86400.0
    decay_half_life: float = 7 * 86400.0
    calc_period: float = 300.0
    favor_small: bool = False

    def __post_init__(self):
        for name in ("weight_age", "weight_fairshare", "weight_job_size", "max_age", "decay_half_life", "calc_period"):
            value = getattr(self, name)
            positive = name in ("max_age", "decay_half_life")
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise ValueError(f"multifactor.{name} must be a number, got {value!r}")
            if not np.isfinite(value) or (value <= 0 if positive else value < 0):
                bound = ">" if positive else ">="
                raise ValueError(f"multifactor.{name} must be a finite number {bound} 0, got {value}")
        if not isinstance(self.favor_small, (bool, np.bool_)):
            raise ValueError(f"multifactor.favor_small must be true or false, got {self.favor_small!r}")

    @classmethod
    def of(cls, given) -> Multifactor:
        """From a Multifactor, a mapping of its fields (a configuration's; a ValueError names an
        unknown key) or None (the defaults)."""
        if given is None:
            return cls()
        if isinstance(given, cls):
            return given
        if not isinstance(given, dict):
            raise ValueError(f"multifactor must be a mapping of {', '.join(cls.__dataclass_fields__)}, got {given!r}")
        unknown = sorted(set(given) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(
                f"multifactor.{unknown[0]} is not a parameter; known are {', '.join(cls.__dataclass_fields__)}"
            )
        return cls(**given)

    def params(self) -> dict:
        """The core's encoding (simcore/engine/_fairshare.pxd's struct of the same fields)."""
        return dataclasses.asdict(self)

    def __str__(self) -> str:
        changed = [
            f"{name}={getattr(self, name)}"
            for name, field in self.__dataclass_fields__.items()
            if getattr(self, name) != field.default
        ]
        return "MULTIFACTOR(" + ", ".join(changed) + ")"
