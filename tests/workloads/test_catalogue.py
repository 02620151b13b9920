"""The catalogue's trace names: known, unknown, and catalogued but unusable."""

from pathlib import Path

import pytest

from simcore.workloads.catalogue import check_trace_names, known_traces, load_catalogue

CATALOGUE = load_catalogue(Path(__file__).resolve().parents[2] / "config" / "pwa_catalogue.yaml")
MODELS = {"lublin-128": {}}


def test_known_traces_mark_what_cannot_be_used():
    known = known_traces(CATALOGUE, MODELS)
    assert "NASA-iPSC (unusable: no requested times" in known
    assert "KTH-SP2, " in known and known.endswith("lublin-128")


def test_names_are_checked_and_the_message_names_the_key():
    check_trace_names(["KTH-SP2", "lublin-128"], CATALOGUE, MODELS, "traces: ")
    with pytest.raises(ValueError, match=r"config: only: unknown traces or models \['NOPE'\]; known: .*KTH-SP2"):
        check_trace_names(["KTH-SP2", "NOPE"], CATALOGUE, MODELS, "only: ", "traces or models")
    with pytest.raises(ValueError, match="config: trace NASA-iPSC cannot be used: no requested times"):
        check_trace_names(["NASA-iPSC"], CATALOGUE, MODELS, "")
