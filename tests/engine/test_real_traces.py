"""The running-time prediction paper's numbers on real traces (resources/published/prediction-sc15.csv).

AVEbsld (tau = 10 s), truncate filter, header machine size, whole trace. Our
own values are pinned exactly by test_golden.py; here each published value
is compared with a tolerance just above the error measured on 2026-11-22
(published values are rounded to 0.1, so a cell's error includes up to
±0.05 of rounding; SDSC-BLUE's EASY is the one cell off by more than 1%).
"""

import pytest

import simcore

# (EASY, EASY clairvoyant, EASY-SJBF clairvoyant) as published.
PUBLISHED = {
    "KTH-SP2": (92.6, 71.7, 49.8),
    "CTC-SP2": (49.6, 37.2, 17.6),
    "SDSC-SP2": (87.9, 70.5, 56.8),
    "SDSC-BLUE": (36.5, 30.6, 13.2),
}
# Relative tolerance per cell, in the order of PUBLISHED (measured: KTH +0.29/+0.51/+0.59 %,
# CTC -0.71/+0.23/-0.14 %, SDSC-SP2 -0.17/+0.10/-0.08 %, SDSC-BLUE +2.72/+0.17/-0.24 %).
TOLERANCE = {
    "KTH-SP2": (0.004, 0.006, 0.007),
    "CTC-SP2": (0.008, 0.003, 0.002),
    "SDSC-SP2": (0.002, 0.002, 0.001),
    "SDSC-BLUE": (0.028, 0.002, 0.003),
}
CONFIGURATIONS = (
    {"estimate": "request"},
    {"estimate": "clairvoyant"},
    {"estimate": "clairvoyant", "backfill": "SPF"},
)

# EASY++ (AVE2, incremental correction, EASY-SJBF): pinned to OUR values, not the
# published ones (KTH 63.5, CTC 85.8, SDSC-SP2 79.4, SDSC-BLUE 21.0: off by +8 %, -29 %,
# +6 %, -1 %). No single candidate cause (AVE2 details, corrections, filter, the paper's
# simulator's rounding) closes the gaps on every trace, and the metric moves by up to
# 4 points when every AVE2 mean moves by 1 s: docs/prediction_easypp.md gives each cause's
# measured AVEbsld (benchmarks/easypp_variants.py). Measured 2026-11-23.
OURS_EASY_PLUS_PLUS = {"KTH-SP2": 68.539, "CTC-SP2": 61.125, "SDSC-SP2": 84.500, "SDSC-BLUE": 20.838}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(OURS_EASY_PLUS_PLUS))
def test_easy_plus_plus_is_pinned_to_ours(pwa_trace, name):
    workload = simcore.read_swf(pwa_trace(name), filter="truncate")
    ours = simcore.simulate(workload, backfill="SPF", estimate="ave2", correction="incremental")
    assert ours.summary()["avg_bsld"] == pytest.approx(OURS_EASY_PLUS_PLUS[name], rel=0.001)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_prediction_paper_table1_and_clairvoyant_sjbf(pwa_trace, name):
    workload = simcore.read_swf(pwa_trace(name), filter="truncate")
    for published, tolerance, options in zip(PUBLISHED[name], TOLERANCE[name], CONFIGURATIONS):
        ours = simcore.simulate(workload, **options).summary()["avg_bsld"]
        assert ours == pytest.approx(published, rel=tolerance), (name, options, ours)


def test_header_machine_sizes(pwa_trace):
    sizes = {name: simcore.read_swf(pwa_trace(name), filter="truncate").machine_size for name in PUBLISHED}
    assert sizes == {"KTH-SP2": 100, "CTC-SP2": 338, "SDSC-SP2": 128, "SDSC-BLUE": 1152}


def test_real_trace_schedule_is_deterministic_and_complete(pwa_trace):
    workload = simcore.read_swf(pwa_trace("KTH-SP2"), filter="strict")
    a = simcore.simulate(
        workload, order="SAF", threshold=144000, backfill="SPF", estimate="ave2", correction="incremental"
    )
    b = simcore.simulate(
        workload, order="SAF", threshold=144000, backfill="SPF", estimate="ave2", correction="incremental"
    )
    assert (a.start == b.start).all()
    assert (a.start >= workload.submit).all()
    assert a.jobs["corrections"].sum() > 0  # AVE2 under-predicts some jobs
