"""The configuration against the workflow's schema (simcore.campaign.config): nested
`--config` overrides are typed, and names from the code's registries are checked."""

import pytest
import yaml
from conftest import REPO
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

import simcore.engine.policies
from simcore.campaign.config import check_registry_names, check_schema, registries, type_overrides
from simcore.studies.bandit.learners import LEARNERS

SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
CAMPAIGN = yaml.safe_load((REPO / "config" / "config.yaml").read_text())


def names() -> dict:
    """The registries the Snakefile checks the configuration against: the engine's and the learners."""
    return {**registries(), "learners": tuple(LEARNERS)}


def overridden(section: str, values: dict) -> dict:
    """The campaign's configuration with `section` updated by `values`, as Snakemake's
    `--config section={...}` leaves it: every scalar a string (YAML's base loader)."""
    config = yaml.safe_load(yaml.safe_dump(CAMPAIGN))
    config[section].update(yaml.load(yaml.safe_dump(values), Loader=yaml.BaseLoader))
    return config


@pytest.mark.parametrize(
    ("section", "values"),
    [
        ("learned_policies", {"tuples": 20}),
        ("reproduction", {"threshold": None}),
        ("reproduction", {"threshold": 7200.5}),
        ("fixed_policy", {"thresholds": [None, 144000], "variants_per_job": 3}),
        ("prediction", {"learning_rates": [0.5, 2]}),
        ("resample", {"weeks": 12}),
    ],
)
def test_nested_scalars_get_the_schema_types(section, values):
    config = overridden(section, values)
    with pytest.raises(WorkflowError):  # what Snakemake validates without the typing
        validate(yaml.safe_load(yaml.safe_dump(config)), str(SCHEMA))
    validate(type_overrides(config, SCHEMA), str(SCHEMA))
    for key, value in values.items():
        assert config[section][key] == value


def test_strings_the_schema_wants_stay_strings():
    config = overridden("fixed_policy", {"orders": ["FCFS", "SPF"], "backfills": ["queue", "none"]})
    config["reproduction"]["backfill"] = "null"  # a string field keeps even YAML's keywords
    type_overrides(config, SCHEMA)
    assert config["fixed_policy"]["backfills"] == ["queue", "none"]
    assert config["reproduction"]["backfill"] == "null"


def test_a_value_of_the_wrong_kind_is_left_for_validation_to_name():
    config = overridden("learned_policies", {"tuples": "twenty"})
    type_overrides(config, SCHEMA)
    assert config["learned_policies"]["tuples"] == "twenty"
    with pytest.raises(WorkflowError, match="twenty"):
        validate(config, str(SCHEMA))


def test_every_configured_registry_name_is_checked_against_its_registry():
    check_registry_names(CAMPAIGN, SCHEMA, names())  # the campaign's own names are known
    config = yaml.safe_load(yaml.safe_dump(CAMPAIGN))
    config["fixed_policy"]["orders"].append("NOPE")
    config["fixed_policy"]["backfills"] = ["queue", "sideways"]
    config["dynamic_scheduling"]["policies"].append("F9")
    config["bandit"]["base"]["candidates"] = ["FCFS", "FUNCTION"]  # FUNCTION needs parameters
    config["prediction"]["bases"] = ["squared", "cubic"]
    config["prediction"]["corrections"] = ["incremental", "tripling"]
    validate(config, str(SCHEMA))  # the schema only wants strings there
    with pytest.raises(ValueError) as error:
        check_registry_names(config, SCHEMA, names())
    message = str(error.value)
    added = len(CAMPAIGN["fixed_policy"]["orders"])
    assert f"config: fixed_policy.orders[{added}]: 'NOPE' is not among the orders (FCFS" in message
    assert "config: fixed_policy.backfills[1]: 'sideways' is not among the backfills (none, queue, FCFS" in message
    assert "'F9' is not among the policies" in message and "bandit.base.candidates[1]: 'FUNCTION'" in message
    assert "config: prediction.bases[1]: 'cubic' is not among the regression bases (squared, linear)" in message
    assert "prediction.corrections[1]: 'tripling' is not among the corrections (request, incremental" in message


def test_an_order_added_to_the_registry_is_accepted_without_editing_the_schema(monkeypatch):
    monkeypatch.setattr(simcore.engine.policies, "NAMED_ORDERS", simcore.engine.policies.NAMED_ORDERS + ("LWF",))
    monkeypatch.setattr(simcore.engine.policies, "BACKFILLS", simcore.engine.policies.BACKFILLS + ("LWF",))
    config = yaml.safe_load(yaml.safe_dump(CAMPAIGN))
    config["fixed_policy"]["orders"].append("LWF")
    config["fixed_policy"]["backfills"] = ["queue", "LWF"]
    config["dynamic_scheduling"]["policies"].append("LWF")
    validate(config, str(SCHEMA))
    check_registry_names(config, SCHEMA, names())


def test_a_learner_added_to_the_registry_is_accepted_without_editing_the_schema(monkeypatch):
    config = yaml.safe_load(yaml.safe_dump(CAMPAIGN))
    config["bandit"]["strategies"]["Thompson-D"] = {"learner": "thompson", "period": "day"}
    validate(config, str(SCHEMA))  # the schema only wants a string
    with pytest.raises(
        ValueError, match=r"bandit.strategies.Thompson-D.learner: 'thompson' is not among the learners \(random"
    ):
        check_registry_names(config, SCHEMA, names())
    monkeypatch.setitem(LEARNERS, "thompson", LEARNERS["ucb1"])
    check_registry_names(config, SCHEMA, names())


@pytest.mark.parametrize(
    ("section", "values", "message"),
    [
        (
            "fixed_policy",
            {"ordrs": ["FCFS"]},
            "config: fixed_policy: Additional properties are not allowed ('ordrs' was unexpected); "
            "allowed there: backfills, orders, site_policies, thresholds, variants_per_job",
        ),
        ("bandit", {"seed": -1}, "config: bandit.seed: -1 is less than the minimum of 0"),
    ],
)
def test_a_configuration_error_is_one_line_naming_the_key(section, values, message):
    config = yaml.safe_load(yaml.safe_dump(CAMPAIGN))
    config[section].update(values)
    with pytest.raises(ValueError) as error:
        check_schema(config, SCHEMA)
    assert str(error.value) == message
    check_schema(CAMPAIGN, SCHEMA)
