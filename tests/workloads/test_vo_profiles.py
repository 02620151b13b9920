"""VO profiles for model traces: the constants are the fit on the real logs, applying one is seeded."""

import numpy as np
import pytest

from simcore.engine.swf import read_swf
from simcore.workloads.lublin import lublin_workload
from simcore.workloads.vo_profiles import GROUPS, VO_PROFILES, apply_vo_profile, fit_vo_profile

LOGS = {"gaia": "UniLu-Gaia", "lpc-egee": "LPC-EGEE"}


@pytest.mark.parametrize("profile", sorted(LOGS))
def test_the_constants_are_the_fit_on_the_real_log(profile, pwa_trace):
    assert fit_vo_profile(read_swf(pwa_trace(LOGS[profile]), filter="truncate")) == VO_PROFILES[profile]


def test_applying_a_profile_is_seeded_and_follows_its_mix():
    model = lublin_workload(20000, 128, seed=1)
    first, again = apply_vo_profile(model, "gaia", 3), apply_vo_profile(model, "gaia", 3)
    np.testing.assert_array_equal(first.group, again.group)
    np.testing.assert_array_equal(first.procs, again.procs)
    assert not np.array_equal(first.group, apply_vo_profile(model, "gaia", 4).group)
    assert set(np.unique(first.group)) <= set(range(1, GROUPS + 1))
    newly_serial = (first.procs == 1) & (model.procs != 1)
    assert abs(newly_serial.sum() / (model.procs != 1).sum() - VO_PROFILES["gaia"]["serial_share"]) < 0.02
    batch = model.run >= 900
    mix = np.bincount(first.group[batch] - 1, minlength=GROUPS) / batch.sum()
    np.testing.assert_allclose(mix, VO_PROFILES["gaia"]["batch"], atol=0.02)
    assert (apply_vo_profile(model, "lpc-egee", 0).procs == 1).all()  # LPC-EGEE ran serial jobs only


def test_unknown_profile_and_a_log_without_groups_are_named():
    with pytest.raises(ValueError, match="unknown VO profile 'lal'; choose one of gaia, lpc-egee"):
        apply_vo_profile(lublin_workload(300, 16, seed=0), "lal", 0)
    with pytest.raises(ValueError, match="no serial job with a group"):
        fit_vo_profile(lublin_workload(300, 16, seed=0))
