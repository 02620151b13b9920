"""The online regression predictor (`regression`, docs/semantics.md
"Regression predictor"): NAG training, losses, causality, KTH-SP2 smoke run."""

import itertools

import numpy as np
import pytest
from simcore.engine._regression import (
    REGRESSION_BASES,
    REGRESSION_WEIGHTINGS,
    NAGRegressor,
    RegressionPredictor,
    loss_and_gradient,
)

import simcore
from simcore.engine.predictors import PREDICTORS, make_predictor


def linear_data(n=4000, seed=0, scales=(1.0, 100.0, 0.01)):
    rng = np.random.default_rng(seed)
    X = np.column_stack([np.ones(n)] + [rng.uniform(-1, 1, n) * s for s in scales])
    w_true = np.array([3.0, -2.0, 0.05, 400.0])
    return X, X @ w_true, w_true


def squared(**kw):
    return NAGRegressor(4, under="squared", over="squared", weighting="constant", **kw)


def test_nag_recovers_known_weights():
    X, y, w_true = linear_data()
    model = squared(l2=0.0, learning_rate=0.5)
    for _ in range(3):
        for x, target in zip(X, y):
            model.fit_step(x, target)
    np.testing.assert_allclose(model.weights, w_true, rtol=1e-3, atol=1e-3)
    Xt, yt, _ = linear_data(200, seed=1)
    assert np.max(np.abs([model.predict(x) for x in Xt] - yt)) < 0.01


@pytest.mark.parametrize("l2", [0.0, 1e-3])
def test_nag_is_invariant_to_feature_scaling(l2):
    X, y, _ = linear_data(1000)
    Xs = X.copy()
    Xs[:, 2] *= 1000.0
    a, b = squared(l2=l2), squared(l2=l2)
    pa, pb = [], []
    for x, xs, target in zip(X, Xs, y):
        pa.append(a.predict(x))
        pb.append(b.predict(xs))
        a.fit_step(x, target)
        b.fit_step(xs, target)
    np.testing.assert_allclose(pa, pb, rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(a.weights[2], b.weights[2] * 1000.0, rtol=1e-7)


def test_regression_predictor_is_invariant_to_raw_feature_scaling():
    rng = np.random.default_rng(3)
    F = rng.uniform(0, 1, (500, 20)) * rng.uniform(1, 1e4, 20)
    y = F[:, 0] * 0.5 + F[:, 4] + 10.0
    Fs = F.copy()
    Fs[:, 0] *= 1000.0  # requested time in other units: linear, square and products
    a, b = RegressionPredictor(), RegressionPredictor()
    for f, fs, target in zip(F, Fs, y):
        np.testing.assert_allclose(a.predict_features(f), b.predict_features(fs), rtol=1e-6, atol=1e-6)
        a.fit_step(f, target, procs=4)
        b.fit_step(fs, target, procs=4)


@pytest.mark.parametrize(
    "under, over, weighting", list(itertools.product(REGRESSION_BASES, REGRESSION_BASES, REGRESSION_WEIGHTINGS))
)
def test_loss_gradient_matches_finite_differences(under, over, weighting):
    rng = np.random.default_rng(7)
    h = 1e-4
    for _ in range(50):
        target = float(rng.uniform(1, 1e5))
        procs = float(rng.integers(1, 200))
        prediction = target + float(rng.choice([-1, 1]) * rng.uniform(1, 1e4))
        loss, grad = loss_and_gradient(prediction, target, under, over, weighting, procs)
        plus, _ = loss_and_gradient(prediction + h, target, under, over, weighting, procs)
        minus, _ = loss_and_gradient(prediction - h, target, under, over, weighting, procs)
        assert loss > 0
        assert grad == pytest.approx((plus - minus) / (2 * h), rel=1e-5, abs=1e-6)
        assert (grad > 0) == (prediction > target)


def test_weights_follow_table_3_and_stay_positive():
    # gamma_j = loss / |error| with a linear basis and error 1
    def gamma(weighting, procs, run):
        return loss_and_gradient(run + 1.0, run, "linear", "linear", weighting, procs)[0]

    assert gamma("constant", 8, 100) == pytest.approx(1.0)
    assert gamma("short_wide", 8, 100) == pytest.approx(5 + np.log(8 / 100))
    assert gamma("long_narrow", 8, 100) == pytest.approx(5 + np.log(100 / 8))
    assert gamma("small_area", 8, 100) == pytest.approx(11 + np.log(1 / 800))
    assert gamma("large_area", 8, 100) == pytest.approx(np.log(800))
    for weighting in REGRESSION_WEIGHTINGS:
        for procs, run in [(1, 0), (1, 1), (1e5, 1), (1, 1e7), (1e5, 1e7)]:
            assert gamma(weighting, procs, run) >= 1e-3
    # the E-Loss (equation 3) is the default: linear under-, squared over-prediction
    assert loss_and_gradient(90.0, 100.0, procs=2)[0] == pytest.approx(np.log(200) * 10)
    assert loss_and_gradient(110.0, 100.0, procs=2)[0] == pytest.approx(np.log(200) * 100)


def random_workload(seed, n=300):
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, 20000, n)).astype(float)
    requested = rng.integers(100, 5000, n).astype(float)
    run = np.floor(requested * rng.uniform(0, 1, n)) + 1
    run = np.minimum(run, requested)
    procs = rng.integers(1, 9, n)
    user = rng.integers(0, 6, n)
    return dict(submit=submit, run=run, requested=requested, procs=procs, user=user, machine_size=16)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_features_never_use_the_future(seed):
    arrays = random_workload(seed)
    w = simcore.Workload.from_arrays(**arrays)

    def estimates(workload):
        result = simcore.simulate(workload, estimate=RegressionPredictor(), correction="incremental", backfill="SPF")
        return result, result.jobs["initial_estimate"]

    base, base_estimates = estimates(w)
    assert len(np.unique(base_estimates)) > 20  # the model does react to its inputs
    rng = np.random.default_rng(100 + seed)
    for j in rng.choice(len(w), 8, replace=False):
        t = arrays["submit"][j]
        later = base.jobs["end"] > t  # completions at t are learned before j is predicted
        run = arrays["run"].copy()
        start = base.jobs["start"]
        for i in np.flatnonzero(later):
            low = max(1.0, t - start[i] + 1.0) if start[i] <= t else 1.0
            if low <= arrays["requested"][i]:
                run[i] = float(rng.integers(int(np.ceil(low)), int(arrays["requested"][i]) + 1))
        changed = simcore.Workload.from_arrays(**{**arrays, "run": run})
        result, new_estimates = estimates(changed)
        seen = arrays["submit"] <= t
        np.testing.assert_array_equal(new_estimates[seen], base_estimates[seen])
        assert not np.array_equal(new_estimates, base_estimates) or not np.any(run != arrays["run"])


@pytest.mark.parametrize("seed", [3, 4])
def test_features_ignore_shuffled_future_jobs(seed):
    """Permuting the attributes of the jobs submitted after r_j leaves the
    features (hence predictions) of j and of every earlier job unchanged."""
    arrays = random_workload(seed)
    rng = np.random.default_rng(seed)

    def features(columns):
        predictor = RegressionPredictor()
        simcore.simulate(
            simcore.Workload.from_arrays(**columns), estimate=predictor, correction="incremental", backfill="SPF"
        )
        return predictor.features

    base = features(arrays)
    for cut in rng.choice(len(arrays["submit"]) - 20, 5, replace=False):
        t = arrays["submit"][cut]
        future = np.flatnonzero(arrays["submit"] > t)
        shuffled = {key: (value.copy() if key != "machine_size" else value) for key, value in arrays.items()}
        perm = rng.permutation(future)
        for key in ("run", "requested", "procs", "user"):
            shuffled[key][future] = arrays[key][perm]
        seen = arrays["submit"] <= t
        np.testing.assert_array_equal(features(shuffled)[seen], base[seen])


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_running_state_features_match_the_schedule(seed):
    """Features 10-14 (Table 2's current-state features) recomputed by brute
    force from the simulated schedule: the user's jobs running at r_j are those
    started before r_j and not yet ended (completions at r_j come first)."""
    arrays = random_workload(seed)
    predictor = RegressionPredictor()
    result = simcore.simulate(
        simcore.Workload.from_arrays(**arrays), estimate=predictor, correction="doubling", backfill="SPF"
    )
    start, end = result.jobs["start"], result.jobs["end"]
    got = predictor.features
    busy = 0
    for j, t in enumerate(arrays["submit"]):
        mine = (arrays["user"] == arrays["user"][j]) & (start < t) & (end > t)
        q = arrays["procs"][mine].astype(float)
        elapsed = t - start[mine]
        expected = [
            q.mean() if mine.any() else 0.0,
            mine.sum(),
            elapsed.max() if mine.any() else 0.0,
            elapsed.sum(),
            q.sum(),
        ]
        np.testing.assert_allclose(got[j, 10:15], expected, rtol=1e-12, atol=1e-9)
        busy += mine.any()
    assert busy > 50  # the case is exercised


def test_one_instance_cannot_drive_two_simulations_at_once():
    w = simcore.Workload.from_arrays(**random_workload(8))
    shared = RegressionPredictor()
    first = simcore.Simulation(w, estimate=shared)
    first.run_until(5000.0)
    with pytest.raises(ValueError, match="driving another simulation"):
        simcore.Simulation(w, estimate=shared)
    first.run_until(np.inf)  # a finished simulation frees it
    second = simcore.Simulation(w, estimate=shared)
    del second  # so does an abandoned one
    simcore.simulate(w, estimate=shared)


def test_kth_sp2_is_deterministic_and_pinned(pwa_trace):
    w = simcore.read_swf(pwa_trace("KTH-SP2"), filter="truncate")
    a, b = (
        simcore.simulate(w, estimate=RegressionPredictor(), correction="incremental", backfill="SPF") for _ in range(2)
    )
    for key in ("initial_estimate", "start", "end"):
        np.testing.assert_array_equal(a.jobs[key], b.jobs[key])
    registered = simcore.simulate(w, estimate="regression", correction="incremental", backfill="SPF")
    np.testing.assert_array_equal(registered.jobs["start"], a.jobs["start"])
    # KTH-SP2 with the E-Loss regression, incremental corrections and SJBF, as computed on 2026-11-22
    assert a.summary()["avg_bsld"] == pytest.approx(63.58374966126917, rel=1e-9)


def test_registry_and_instances():
    assert PREDICTORS["regression"] is RegressionPredictor
    p = RegressionPredictor(weighting="constant")
    assert make_predictor(p, 10) is p
    assert isinstance(make_predictor("regression", 10), RegressionPredictor)
    assert "weighting='constant'" in repr(p)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"under": "cubic"}, "under='cubic'"),
        ({"over": "abs"}, "over='abs'"),
        ({"weighting": "heavy"}, "weighting='heavy'"),
        ({"l2": -1.0}, "l2=-1.0"),
        ({"l2": "x"}, "l2='x'"),
        ({"learning_rate": 0.0}, "learning_rate=0.0"),
        ({"learning_rate": float("nan")}, "learning_rate=nan"),
    ],
)
def test_bad_constructor_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        RegressionPredictor(**kwargs)
