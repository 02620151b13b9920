"""simcore: the exact EASY-family simulator behind the schedsweep campaigns.

    >>> import simcore
    >>> workload = simcore.read_swf("KTH-SP2-1996-2.1-cln.swf.gz", filter="truncate")
    >>> result = simcore.simulate(workload, order="FCFS", backfill="SPF", estimate="clairvoyant")
    >>> result.summary()["avg_bsld"]

See docs/semantics.md for the exact semantics.
"""

from simcore.engine.policies import BACKFILLS, BANDIT_ORDERS, ORDER_MEANINGS, ORDERS, Policy
from simcore.engine.predictors import PREDICTORS
from simcore.engine.priority import Multifactor, PriorityFunction
from simcore.engine.simulation import CORRECTIONS, Simulation, SimulationResult, simulate
from simcore.engine.swf import FILTER_MODES, SwfFormatError, read_swf
from simcore.engine.workload import Workload, WorkloadError

__version__ = "0.1.0"

__all__ = [
    "BACKFILLS",
    "BANDIT_ORDERS",
    "CORRECTIONS",
    "FILTER_MODES",
    "ORDERS",
    "ORDER_MEANINGS",
    "PREDICTORS",
    "Multifactor",
    "Policy",
    "PriorityFunction",
    "Simulation",
    "SimulationResult",
    "SwfFormatError",
    "Workload",
    "WorkloadError",
    "read_swf",
    "simulate",
]
