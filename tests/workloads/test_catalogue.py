"""The catalogue's trace names: known, unknown, and catalogued but unusable."""

import gzip
import hashlib
from pathlib import Path

import pytest

from simcore.workloads.catalogue import check_trace_names, fetch_trace, fetched_name, known_traces, load_catalogue

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


def test_a_mirror_directory_may_name_a_trace_as_the_workflow_fetches_it(tmp_path):
    text = b"; MaxProcs: 8\n1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n"
    entry = {
        "file": "ARCHIVE-1.0-cln.swf.gz",
        "url": "http://127.0.0.1:9/x",
        "swf_sha256": hashlib.sha256(text).hexdigest(),
    }
    for mirror, name in (("archive-names", entry["file"]), ("resources-traces", fetched_name("T"))):
        (tmp_path / mirror).mkdir()
        (tmp_path / mirror / name).write_bytes(gzip.compress(text))
        destination = tmp_path / mirror / "out" / "T.swf.gz"
        destination.parent.mkdir()
        assert fetch_trace("T", entry, destination, mirror=tmp_path / mirror) == str(tmp_path / mirror / name)
        assert gzip.decompress(destination.read_bytes()) == text
