"""The environments' ids and versions (docs/environments.md, "Versions"): each class's docstring has
its Version History up to the registered version, and a replaced version is refused by name."""

from __future__ import annotations

import importlib

import gymnasium
import pytest

from simcore.envs import ENVIRONMENTS

REPLACED = {"schedsweep/GridScheduling-v0": "v1", "schedsweep/ElasticProvisioning-v0": "v1"}


@pytest.mark.parametrize("env_id", sorted(ENVIRONMENTS))
def test_the_docstring_has_every_version_up_to_the_registered_one(env_id):
    module, name = ENVIRONMENTS[env_id].split(":")
    docstring = getattr(importlib.import_module(module), name).__doc__
    assert "Version History" in docstring
    version = int(env_id.rsplit("-v", 1)[1])
    for earlier in range(version + 1):
        assert f"- v{earlier} (" in docstring, f"{env_id}: no entry for v{earlier}"
    assert f"- v{version + 1} (" not in docstring


@pytest.mark.parametrize("env_id", sorted(REPLACED))
def test_a_replaced_version_is_refused_naming_the_current_one(env_id):
    with pytest.raises(gymnasium.error.DeprecatedEnv, match=REPLACED[env_id]):
        gymnasium.make(env_id)
