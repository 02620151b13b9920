"""The layers of simcore import only downwards (docs/architecture.md).

engine <- workloads <- campaign, reporting <- studies/<study>; a study never imports
another study; only the entry points (simcore/__init__.py, simcore/cli.py)
see everything. Read from the source (Python `import`s and Cython
`cimport`s), so a violation fails here before it becomes a cycle.
"""

import ast
import re
from pathlib import Path

import pytest
from conftest import REPO

PACKAGE = REPO / "simcore"
LAYERS = {
    "engine": {"engine"},
    "workloads": {"engine", "workloads"},
    "campaign": {"engine", "workloads", "campaign"},
    "reporting": {"engine", "workloads", "reporting"},
}
ENTRY_POINTS = {"simcore/__init__.py", "simcore/cli.py", "simcore/envs.py"}
CYTHON_IMPORT = re.compile(r"^\s*(?:from\s+(simcore[\w.]*)\s+c?import|c?import\s+(simcore[\w.]*))", re.MULTILINE)


def simcore_imports(path: Path) -> set[str]:
    """Every simcore module a file imports (`from simcore import __version__` counts as none)."""
    if path.suffix in (".pyx", ".pxd", ".pxi"):
        return {first or second for first, second in CYTHON_IMPORT.findall(path.read_text())}
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("simcore"):
            names = {alias.name for alias in node.names}
            if node.module == "simcore":
                found |= {f"simcore.{name}" for name in names - {"__version__"}}
            else:
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("simcore")}
    return found


def allowed(module_path: Path) -> set[str] | None:
    """The top-level parts of simcore a file may import from (None: anything)."""
    relative = module_path.relative_to(REPO).as_posix()
    if relative in ENTRY_POINTS:
        return None
    layer = module_path.relative_to(PACKAGE).parts[0]
    if layer == "studies":
        study = module_path.relative_to(PACKAGE).parts[1]
        return LAYERS["reporting"] | {"campaign", f"studies.{study}"}
    return LAYERS[layer]


SOURCES = sorted(path for path in PACKAGE.rglob("*") if path.suffix in (".py", ".pyx", ".pxd", ".pxi"))


def test_every_module_belongs_to_a_layer():
    stray = [
        path.relative_to(REPO).as_posix()
        for path in SOURCES
        if path.relative_to(REPO).as_posix() not in ENTRY_POINTS
        and path.relative_to(PACKAGE).parts[0] not in {*LAYERS, "studies"}
    ]
    assert stray == []


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: path.relative_to(REPO).as_posix())
def test_imports_point_down(path):
    permitted = allowed(path)
    if permitted is None:
        return
    wrong = []
    for module in simcore_imports(path):
        parts = module.split(".")[1:]
        target = ".".join(parts[:2]) if parts[:1] == ["studies"] else (parts[0] if parts else "")
        if target not in permitted:
            wrong.append(module)
    assert wrong == [], f"{path.relative_to(REPO)} may import only from {sorted(permitted)}"


def test_the_checker_sees_violations(tmp_path):
    """The rule is not vacuous: a study importing another study is caught."""
    study = PACKAGE / "studies" / "bandit" / "example.py"
    source = "from simcore.studies.prediction.study import x\nfrom simcore.engine import y\n"
    fake = tmp_path / "example.py"
    fake.write_text(source)
    imports = simcore_imports(fake)
    assert imports == {"simcore.studies.prediction.study", "simcore.engine"}
    assert "studies.prediction" not in allowed(study)


# The workflow: the Snakefile and the shared rules see the campaign alone; a study's rules file
# sees the campaign and its own study's `rules` module (docs/architecture.md).
WORKFLOW_FILES = sorted([REPO / "Snakefile", *(REPO / "workflow" / "rules").rglob("*.smk")])
WORKFLOW_IMPORT = re.compile(
    r"^\s*(?:from\s+(simcore[\w.]*)\s+import\s+\(?\s*(\w+)|import\s+(simcore[\w.]*))", re.MULTILINE
)


def workflow_allowed(path: Path, module: str) -> bool:
    if module == "simcore.campaign" or module.startswith("simcore.campaign."):
        return True
    return path.parent.name == "studies" and module == f"simcore.studies.{path.stem}.rules"


def workflow_imports(path: Path) -> set[str]:
    """The simcore modules a workflow file imports (`from simcore.studies.x import rules`: x's rules)."""
    return {
        f"{package}.rules" if name == "rules" else package or module
        for package, name, module in WORKFLOW_IMPORT.findall(path.read_text())
    }


@pytest.mark.parametrize("path", WORKFLOW_FILES, ids=lambda path: path.relative_to(REPO).as_posix())
def test_the_workflow_sees_the_campaign_and_its_own_studys_rules(path):
    wrong = sorted(module for module in workflow_imports(path) if not workflow_allowed(path, module))
    assert wrong == [], f"{path.relative_to(REPO)} may import simcore.campaign and its own study's rules only"


def test_the_workflow_checker_sees_violations(tmp_path):
    study = tmp_path / "studies" / "elastic.smk"
    study.parent.mkdir()
    study.write_text(
        "from simcore.studies.elastic import rules as elastic_rules\nfrom simcore.studies.elastic.figures import F\n"
    )
    assert workflow_imports(study) == {"simcore.studies.elastic.rules", "simcore.studies.elastic.figures"}
    assert [module for module in workflow_imports(study) if not workflow_allowed(study, module)] == [
        "simcore.studies.elastic.figures"
    ]
