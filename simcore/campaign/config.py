"""The configuration against the workflow's schema, beyond what jsonschema checks: typing of
command-line overrides, and names taken from the code's registries.

Snakemake parses a nested `--config` value such as ``'learned_policies={tuples: 20}'``
with YAML's base loader, which keeps every scalar a string: the schema would then
reject ``'20'``. Where the schema does not accept a string, a string value is read
as YAML (``20`` -> 20, ``null`` -> None, ``true`` -> True) and kept when the schema
accepts what it reads; anything else is left to the validation, which names the key.

A string the schema marks with ``x-registry`` (``orders``, ``backfills``, ``policies``, the
regression's bases and weightings, ``corrections``; the Snakefile adds ``learners``) must
name an entry of that registry (`registries`): the names come from the code, so a queue order
added to the registry (docs/extending.md, "A queue order") is accepted without editing the schema.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path

import jsonschema
import yaml

_PYTHON_TYPES = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
    "array": (list,),
    "object": (dict,),
}


def _resolve(schema: dict, root: dict) -> dict:
    while "$ref" in schema:
        reference = schema["$ref"]
        if not reference.startswith("#/"):
            raise ValueError(f"schema: only local references are supported, got {reference!r}")
        schema = root
        for part in reference[2:].split("/"):
            schema = schema[part]
    return schema


def _alternatives(schema: dict, root: dict) -> list[dict]:
    """The schema and its parts (oneOf / anyOf / allOf), references resolved: where a
    value's type or a key's schema is looked for."""
    schema = _resolve(schema, root)
    branches = schema.get("oneOf", []) + schema.get("anyOf", []) + schema.get("allOf", [])
    if not branches:
        return [schema]
    return [schema] + [alternative for branch in branches for alternative in _alternatives(branch, root)]


def _accepts(alternatives: list[dict], value) -> bool:
    for schema in alternatives:
        if "enum" in schema and value in schema["enum"]:
            return True
        kinds = schema.get("type")
        if kinds is None:
            continue
        for kind in [kinds] if isinstance(kinds, str) else kinds:
            if isinstance(value, _PYTHON_TYPES[kind]) and not (
                kind in ("integer", "number") and isinstance(value, bool)
            ):
                return True
    return False


def _typed(value, schema: dict, root: dict):
    alternatives = _alternatives(schema, root)
    if isinstance(value, str):
        if _accepts(alternatives, value):
            return value
        try:
            read = yaml.safe_load(value)
        except yaml.YAMLError:
            return value
        return read if _accepts(alternatives, read) else value
    if isinstance(value, dict):
        for key, item in value.items():
            for alternative in alternatives:
                if key in alternative.get("properties", {}):
                    value[key] = _typed(item, alternative["properties"][key], root)
                    break
                extra = alternative.get("additionalProperties")
                if isinstance(extra, dict):
                    value[key] = _typed(item, extra, root)
                    break
        return value
    if isinstance(value, list):
        items = next((alternative["items"] for alternative in alternatives if "items" in alternative), None)
        if isinstance(items, dict):
            value[:] = [_typed(item, items, root) for item in value]
    return value


@contextmanager
def one_line_errors():
    """A configuration error (a ValueError naming the key and what is wrong) ends the run with that
    one line on the terminal and exit status 1, not a traceback through the workflow's files."""
    try:
        yield
    except ValueError as error:
        sys.exit(f"schedsweep: {error}")


def type_overrides(config: dict, schema_path) -> dict:
    """Read, in place, the string values of `config` that the schema wants typed."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    return _typed(config, schema, schema)


def check_schema(config: dict, schema_path) -> None:
    """ValueError in one line when `config` breaks the schema: the key's path and the reason
    (jsonschema's best match; for an unknown key, the keys allowed there). Snakemake's own
    validation, which fills in the defaults, prints the schema and the section besides."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    validator = jsonschema.validators.validator_for(schema)(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(config))
    if error is None:
        return
    where = ".".join(str(part) for part in error.absolute_path) or "the top level"
    message = f"config: {where}: {error.message}"
    if error.validator == "additionalProperties" and "properties" in error.schema:
        message += f"; allowed there: {', '.join(sorted(error.schema['properties']))}"
    raise ValueError(message)


def campaign_catalogue(name: str, basedir) -> tuple[str, dict]:
    """The catalogue a configuration names and its entries: a relative path is looked up in the
    working directory, then beside the Snakefile (`basedir`)."""
    from simcore.workloads.catalogue import load_catalogue

    found = next((path for path in (Path(name), Path(basedir) / name) if path.exists()), Path(name))
    return str(found), load_catalogue(found)


def registries() -> dict[str, tuple[str, ...]]:
    """The names each ``x-registry`` of the schema accepts."""
    from simcore.engine._regression import REGRESSION_BASES, REGRESSION_WEIGHTINGS
    from simcore.engine.policies import BACKFILLS, NAMED_ORDERS
    from simcore.engine.priority import THESIS_FUNCTIONS
    from simcore.engine.simulation import CORRECTIONS

    return {
        "orders": NAMED_ORDERS,
        "backfills": BACKFILLS,
        "policies": NAMED_ORDERS + tuple(THESIS_FUNCTIONS),
        "regression bases": REGRESSION_BASES,
        "regression weightings": REGRESSION_WEIGHTINGS,
        "corrections": CORRECTIONS,
    }


def _unknown_names(value, schema: dict, root: dict, path: str, names: dict):
    """(path, value, registry) of each registry name in `value` that its registry lacks."""
    alternatives = _alternatives(schema, root)
    if isinstance(value, str):
        for alternative in alternatives:
            registry = alternative.get("x-registry")
            if registry and value not in names[registry]:
                yield path, value, registry
    elif isinstance(value, dict):
        for key, item in value.items():
            for alternative in alternatives:
                inner = alternative.get("properties", {}).get(key, alternative.get("additionalProperties"))
                if isinstance(inner, dict):
                    yield from _unknown_names(item, inner, root, f"{path}.{key}" if path else key, names)
                    break
    elif isinstance(value, list):
        items = next((alternative["items"] for alternative in alternatives if "items" in alternative), None)
        if isinstance(items, dict):
            for index, item in enumerate(value):
                yield from _unknown_names(item, items, root, f"{path}[{index}]", names)


def check_registry_names(config: dict, schema_path, names: dict | None = None) -> None:
    """ValueError naming the key and the known names for each name of `config` that its
    registry (`registries()`, or `names`) lacks; run after the schema's validation."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    names = registries() if names is None else names
    unknown = list(_unknown_names(config, schema, schema, "", names))
    if unknown:
        raise ValueError(
            "; ".join(
                f"config: {path}: {value!r} is not among the {registry} ({', '.join(names[registry])})"
                for path, value, registry in unknown
            )
        )
