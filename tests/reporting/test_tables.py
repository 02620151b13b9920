"""The reports' one Markdown-table writer, and that no module writes a table rule by hand."""

import ast

import pandas as pd
import pytest
from conftest import REPO

from simcore.reporting.tables import markdown_table


def test_a_table_is_its_header_rule_and_rows_unpadded():
    frame = pd.DataFrame([["KTH-SP2", "12.50", "yes"], ["a much longer trace name", "3.1", "no"]])
    frame.columns = ["trace", "AVEbsld", "holds"]
    assert markdown_table(frame, "lrc").splitlines() == [
        "| trace | AVEbsld | holds |",
        "|---|--:|:-:|",
        "| KTH-SP2 | 12.50 | yes |",
        "| a much longer trace name | 3.1 | no |",
    ]


def test_the_columns_past_the_alignment_are_left_aligned():
    frame = pd.DataFrame([["a", "1", "x"]], columns=["one", "two", "three"])
    assert markdown_table(frame, "r").splitlines()[1] == "|--:|---|---|"
    assert markdown_table(frame).splitlines()[1] == "|---|---|---|"


@pytest.mark.parametrize("cell", ["1,000", "+1.0", "007", "1e3", "–", "", "`reg:a/b`", "0.10 [0.05, 0.20]"])
def test_a_cell_is_written_as_given(cell):
    """No number parsing: tabulate would write "+1.0" as "1" and "007" as "7"."""
    frame = pd.DataFrame([["row", cell]], columns=["name", "value"])
    assert markdown_table(frame, "lr").splitlines()[2] == f"| row | {cell} |"


def test_cells_that_are_not_text_are_written_by_str():
    frame = pd.DataFrame({"trace": ["T"], "jobs": [1200], "share": [0.25]})
    assert markdown_table(frame, "lrr").splitlines()[2] == "| T | 1200 | 0.25 |"


def test_a_table_without_rows_keeps_its_header_and_rule():
    assert markdown_table(pd.DataFrame(columns=["trace", "jobs"]), "lr") == "| trace | jobs |\n|---|--:|"


def test_column_names_may_repeat_and_the_index_is_left_out():
    frame = pd.DataFrame([["A", "B", "0.90"]], columns=["trace", "trace", "Pearson"], index=["ignored"])
    assert markdown_table(frame, "llr") == "| trace | trace | Pearson |\n|---|---|--:|\n| A | B | 0.90 |"


@pytest.mark.parametrize("align", ["lrr", "lx"])
def test_an_alignment_letter_per_column_at_most_each_l_r_or_c(align):
    with pytest.raises(ValueError, match="align"):
        markdown_table(pd.DataFrame([["a", "b"]], columns=["x", "y"]), align)


def is_a_rule(text: str) -> bool:
    """A table rule or a piece of one: "|---|--:|", "--:|" * n, or a column's "---", "--:", ":-:"."""
    return text == "---" or any(mark in text for mark in ("|---", "---|", "--:", ":-:"))


def strings_outside_docstrings(path):
    """Every string constant of a module (f-string parts included) but its docstrings."""
    tree = ast.parse(path.read_text(), filename=str(path))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_no_module_writes_a_table_rule_by_hand():
    """Every report table goes through markdown_table (the observation tables in the environments'
    docstrings are documentation, not output)."""
    writer = REPO / "simcore" / "reporting" / "tables.py"
    by_hand = {
        path.relative_to(REPO).as_posix()
        for path in (REPO / "simcore").rglob("*.py")
        if path != writer and any(is_a_rule(text) for text in strings_outside_docstrings(path))
    }
    assert by_hand == set()


def test_the_rule_check_sees_a_rule_written_by_hand(tmp_path):
    module = tmp_path / "module.py"
    module.write_text(
        '"""| a |\n|---|"""\n\ndef f():\n    """|---|"""\n    return ["| x |", f"|---|{1}", ["---", "--:"]]\n'
    )
    assert [text for text in strings_outside_docstrings(module) if is_a_rule(text)] == ["|---|", "---", "--:"]
