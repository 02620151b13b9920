"""The echo state network that serves as the SARSA learner's Q-function (docs/elastic.md §6).

A reservoir is three arrays and a sigmoid: `x_t = σ(W x_{t−1} + W_in u_t + b)`. Q reads a fixed
subset S of 15 units through a linear readout `Q = β_0 + Σ_{i∈S} β_i x[i]`, refitted exactly (ridge
on the units, intercept unpenalised) on every example so far. The same arrays drive reservoirpy's
`Reservoir` to the same states (a test), so its other nodes can be swapped in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import numpy as np
from scipy.special import expit

UNITS = 100
CONNECTIVITY = 0.10  # reservoir-to-reservoir
SPECTRAL_RADIUS = 0.9
READOUT_UNITS = 15  # 15 % reservoir-to-output connectivity
RIDGE = 1e-6


@dataclass(frozen=True)
class Reservoir:
    """W (N, N), W_in (N, d), bias (N,) and the readout units S, generated from a seed."""

    W: np.ndarray
    W_in: np.ndarray
    bias: np.ndarray
    readout_units: np.ndarray

    @classmethod
    def generate(cls, inputs: int, seed: int, units: int = UNITS) -> Reservoir:
        """The draws of docs/elastic.md §6.1, in its order, from `numpy.random.default_rng(seed)`."""
        rng = np.random.default_rng(seed)
        mask = rng.random((units, units)) < CONNECTIVITY
        values = rng.random((units, units))
        W = np.where(mask, values, 0.0)
        radius = _spectral_radius(W.tobytes(), units)
        if radius > 0:
            W = W * (SPECTRAL_RADIUS / radius)
        W_in = rng.uniform(-1.0, 1.0, (units, inputs))
        bias = rng.uniform(-1.0, 1.0, units)
        readout_units = np.sort(rng.choice(units, READOUT_UNITS, replace=False))
        return cls(W, W_in, bias, readout_units)

    @property
    def units(self) -> int:
        return len(self.bias)

    def step(self, state: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        """The next state, committed by the caller."""
        return expit(self.W @ state + self.W_in @ inputs + self.bias)

    @cached_property
    def _readout_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rows of W, W_in and b that the readout units S read, copied once per reservoir."""
        S = self.readout_units
        return self.W[S], self.W_in[S], self.bias[S]

    def tentative_readout(self, state: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """The readout units of the state each candidate's inputs (rows) would lead to, without
        committing: only the |S| units Q reads are computed."""
        W, W_in, bias = self._readout_rows
        recurrent = W @ state + bias
        return expit(recurrent + candidates @ W_in.T)


@lru_cache(maxsize=8)
def _spectral_radius(weights: bytes, units: int) -> float:
    """max |eigenvalue| of W (given as bytes, so it can be a cache key): W depends on the seed
    alone, and every run of a seed generates it again; the eigenvalues are the dearest draw."""
    return float(np.max(np.abs(np.linalg.eigvals(np.frombuffer(weights).reshape(units, units)))))


@dataclass
class Readout:
    """Q = β·z with z = [1, x[S]]: the exact ridge solution on all examples, kept as the normal
    equations (A = Σ z zᵀ, c = Σ z y) so that one more example costs one small solve."""

    size: int = READOUT_UNITS + 1
    ridge: float = RIDGE
    A: np.ndarray = field(init=False)
    c: np.ndarray = field(init=False)
    beta: np.ndarray = field(init=False)
    examples: int = field(init=False, default=0)

    def __post_init__(self):
        self.reset()

    def reset(self) -> None:
        self.A = np.zeros((self.size, self.size))
        self.c = np.zeros(self.size)
        self.beta = np.zeros(self.size)
        self.examples = 0

    @cached_property
    def _penalty(self) -> np.ndarray:
        penalty = np.full(self.size, self.ridge)
        penalty[0] = 0.0  # the intercept is not penalised
        return np.diag(penalty)

    def _solve(self) -> None:
        self.beta = np.linalg.solve(self.A + self._penalty, self.c)

    def add(self, z: np.ndarray, y: float) -> None:
        """One more example, then the refit."""
        self.A += np.outer(z, z)
        self.c += z * y
        self.examples += 1
        self._solve()

    def fit(self, Z: np.ndarray, y: np.ndarray) -> None:
        """From scratch on the rows of Z and their targets."""
        self.A = Z.T @ Z
        self.c = Z.T @ y
        self.examples = len(y)
        self._solve()

    def values(self, readout_states: np.ndarray) -> np.ndarray:
        """Q of rows of readout-unit states (without the leading 1)."""
        return self.beta[0] + readout_states @ self.beta[1:]


def features(readout_state: np.ndarray) -> np.ndarray:
    """z = [1, x[S]]."""
    return np.concatenate(([1.0], readout_state))
