"""The bandit artifact's resampling (simcore/workloads/artifact_resample.py), job for job."""

import hashlib

import numpy as np
import pytest

import simcore
from simcore.workloads.artifact_resample import OCaml4Random, artifact_permutation
from simcore.workloads.resample import WEEK, resample

# sha256 of the (submit, run, requested processors, requested time) rows, sorted, of the
# artifact's own variants of KTH-SP2 (its `long` files for metaid 1, 37 and 60, built with its
# ocst tools at df04de6 under OCaml 4.13), and their job counts
ARTIFACT_KTH = {
    1: (61855, "c00e7896ecec8bec264f1e1a61d493b411ed5b99a240454bd150be4cd00ef210"),
    37: (58626, "bf8ccc8ba57fdb2fa230a473ed1fb789cc73412aaef4397acf9c775e2eb9126d"),
    60: (54820, "83a7829e11565d041496650d92c2dcd25e800b25835bc7ddec2dcff5b5f25468"),
}


def job_digest(workload) -> str:
    rows = np.column_stack([workload.submit, workload.run, workload.procs, workload.requested]).astype(np.int64)
    return hashlib.sha256(rows[np.lexsort(rows.T[::-1])].tobytes()).hexdigest()


@pytest.mark.parametrize("metaid", sorted(ARTIFACT_KTH))
def test_kth_variants_are_the_artifacts_job_for_job(pwa_trace, metaid):
    workload = simcore.read_swf(pwa_trace("KTH-SP2"), filter="strict")  # the artifact's strong_filter
    variant, _ = resample(workload, metaid - 1, "artifact")
    assert (len(variant), job_digest(variant)) == ARTIFACT_KTH[metaid]
    assert variant.submit.max() < 100 * WEEK


def test_ocaml_random_matches_ocaml_4():
    """Random.init 42 then Random.int 1000, five times, under OCaml 4.13."""
    rng = OCaml4Random(42)
    assert [rng.int(1000) for _ in range(5)] == [14, 655, 623, 953, 57]


def test_the_permutation_matches_the_extraction_run_in_ocaml():
    """Random.init 7, then the extraction (reversed prefix before the pick, then the suffix; each
    pick prepended) on [0..9], run in OCaml 4.13."""
    assert artifact_permutation(OCaml4Random(7), list(range(10))) == [5, 0, 3, 1, 6, 7, 4, 8, 9, 2]


def test_every_block_starts_with_a_job_at_its_week(pwa_trace):
    workload = simcore.read_swf(pwa_trace("KTH-SP2"), filter="strict")
    variant, _ = resample(workload, 0, "artifact")
    block = np.floor(variant.submit / WEEK).astype(int)
    firsts = np.array([variant.submit[block == k].min() for k in np.unique(block)])
    assert np.isin(np.unique(block) * WEEK, firsts).sum() >= 99  # a block may spill past its week


def test_the_artifacts_length_is_fixed(pwa_trace):
    workload = simcore.read_swf(pwa_trace("KTH-SP2"), filter="strict")
    with pytest.raises(ValueError, match="the artifact's variants last 100 weeks, got weeks=104"):
        resample(workload, 0, "artifact", 104)
