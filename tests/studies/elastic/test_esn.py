"""The echo state network of the elastic study: generation, stepping, tentative scoring, the exact
readout refit, and the equivalence with reservoirpy's Reservoir driven by the same arrays."""

import numpy as np
import pytest
from reservoirpy.nodes import Reservoir as ReservoirpyReservoir

from simcore.studies.elastic.esn import (
    CONNECTIVITY,
    READOUT_UNITS,
    RIDGE,
    SPECTRAL_RADIUS,
    Readout,
    Reservoir,
    features,
)


def test_generation_follows_the_documented_draws():
    reservoir = Reservoir.generate(19, seed=7)
    rng = np.random.default_rng(7)
    mask = rng.random((100, 100)) < CONNECTIVITY
    values = rng.random((100, 100))
    np.testing.assert_array_equal(reservoir.W != 0, mask & (values != 0))
    scale = reservoir.W[mask][0] / values[mask][0]
    np.testing.assert_allclose(reservoir.W, np.where(mask, values, 0.0) * scale, rtol=1e-12)
    assert abs(np.max(np.abs(np.linalg.eigvals(reservoir.W))) - SPECTRAL_RADIUS) < 1e-12
    np.testing.assert_array_equal(reservoir.W_in, rng.uniform(-1, 1, (100, 19)))
    np.testing.assert_array_equal(reservoir.bias, rng.uniform(-1, 1, 100))
    np.testing.assert_array_equal(reservoir.readout_units, np.sort(rng.choice(100, READOUT_UNITS, replace=False)))
    again = Reservoir.generate(19, seed=7)
    for name in ("W", "W_in", "bias", "readout_units"):
        np.testing.assert_array_equal(getattr(again, name), getattr(reservoir, name))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_states_equal_reservoirpy_driven_by_the_same_arrays(seed):
    reservoir = Reservoir.generate(20, seed=seed)
    node = ReservoirpyReservoir(
        units=100, lr=1.0, W=reservoir.W, Win=reservoir.W_in, bias=reservoir.bias, activation="sigmoid"
    )
    inputs = np.random.default_rng(100 + seed).random((200, 20))
    state, ours = np.zeros(100), []
    for u in inputs:
        state = reservoir.step(state, u)
        ours.append(state)
    np.testing.assert_allclose(node.run(inputs), np.array(ours), rtol=0, atol=1e-12)


def test_tentative_scoring_does_not_commit_and_matches_a_step():
    reservoir = Reservoir.generate(5, seed=3)
    state = reservoir.step(np.zeros(100), np.full(5, 0.5))
    kept = state.copy()
    candidates = np.random.default_rng(4).random((7, 5))
    tentative = reservoir.tentative_readout(state, candidates)
    np.testing.assert_array_equal(state, kept)
    for row, u in zip(tentative, candidates):
        np.testing.assert_allclose(row, reservoir.step(state, u)[reservoir.readout_units], rtol=0, atol=1e-15)


def test_readout_is_the_ridge_solution_with_an_unpenalised_intercept():
    rng = np.random.default_rng(5)
    states, targets = rng.random((40, READOUT_UNITS)), rng.normal(size=40)
    Z = np.array([features(x) for x in states])
    incremental, batch = Readout(), Readout()
    for z, y in zip(Z, targets):
        incremental.add(z, y)
    batch.fit(Z, targets)
    # the same problem as an augmented least-squares system, solved by numpy
    augmented = np.vstack([Z, np.sqrt(RIDGE) * np.eye(READOUT_UNITS + 1)[1:]])
    expected = np.linalg.lstsq(augmented, np.concatenate([targets, np.zeros(READOUT_UNITS)]), rcond=None)[0]
    np.testing.assert_allclose(incremental.beta, expected, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(batch.beta, expected, rtol=1e-8, atol=1e-10)
    assert incremental.examples == batch.examples == 40
    np.testing.assert_allclose(incremental.values(states), Z @ expected, rtol=1e-8, atol=1e-10)


def test_a_single_example_is_fitted_by_the_intercept():
    readout = Readout()
    assert readout.values(np.ones((1, READOUT_UNITS)))[0] == 0.0  # no example: Q = 0
    readout.add(features(np.full(READOUT_UNITS, 0.5)), 0.7)
    assert abs(readout.values(np.full((1, READOUT_UNITS), 0.5))[0] - 0.7) < 1e-5
