"""Registry of running-time predictors (SEMANTICS §5).

A predictor is a Cython class deriving from simcore.engine._predictor.Predictor;
the event loop calls its C-level predict/learn methods directly. To add one:
docs/extending.md, "A predictor".
"""

from __future__ import annotations

import numpy as np

from simcore.engine._predictor import ArrayPredictor, Ave2Predictor, ClairvoyantPredictor, Predictor, RequestPredictor
from simcore.engine._regression import RegressionPredictor

PREDICTORS = {
    "request": RequestPredictor,
    "clairvoyant": ClairvoyantPredictor,
    "ave2": Ave2Predictor,
    "regression": RegressionPredictor,  # default loss: the paper's E-Loss
}


def make_predictor(estimate, n_jobs: int):
    """A fresh predictor for a registry name or a per-job array of predictions,
    or the caller's own Predictor instance (e.g. RegressionPredictor(...)).

    A Predictor instance is bound to the simulation, which resets what it
    learned; it must not be shared between simulations that run at the same
    time (interleaved run_until calls), since both would drive one state.
    Running simulations one after the other with one instance is fine.
    """
    if isinstance(estimate, Predictor):
        return estimate
    if isinstance(estimate, str):
        try:
            return PREDICTORS[estimate]()
        except KeyError:
            raise ValueError(
                f"unknown estimate {estimate!r}; choose one of {', '.join(PREDICTORS)} or pass one prediction per job"
            ) from None
    values = np.asarray(estimate, dtype=np.float64)
    if values.shape != (n_jobs,):
        raise ValueError(f"estimate array has shape {values.shape}, expected ({n_jobs},)")
    if not np.all(np.isfinite(values)):
        raise ValueError(
            f"estimate array has a non-finite value at job position {int(np.flatnonzero(~np.isfinite(values))[0])}"
        )
    return ArrayPredictor(values)
