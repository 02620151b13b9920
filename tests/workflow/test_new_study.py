"""A study is added by its own files alone (README, "Extending"; docs/extending.md): in a copy of
the workflow, a throwaway study's rules file, its schema section and its caption, and nothing
else, put it in the campaign's and the demo's DAGs, under `only`, in the reproduction report and
behind a target of its own."""

import shutil
import subprocess
import sys

import pytest
import yaml
from conftest import REPO

STUDY_RULES = """# A throwaway study: one summary per trace, and its report section.

register_study(
    "throwaway",
    rank=95,
    category="Throwaway study",
    outputs=lambda root, chosen: [
        f"{root}/throwaway/{trace}.txt" for trace in chosen["throwaway"]["traces"]
    ]
    + [f"{root}/throwaway/report.md"],
)


rule throwaway_run:
    input:
        lambda wildcards: study_workload("throwaway", wildcards.trace),
    output:
        report(
            "{root}/throwaway/{trace}.txt",
            caption="../../report/throwaway.rst",
            category=report_category("throwaway"),
        ),
    log:
        "{root}/logs/throwaway/{trace}.log",
    conda:
        "../../envs/simcore.yaml"
    shell:
        "simcore info {input} > {output} 2> {log}"


rule throwaway_section:
    input:
        lambda wildcards: [
            f"{wildcards.root}/throwaway/{trace}.txt"
            for trace in settings(wildcards.root)["throwaway"]["traces"]
        ],
    output:
        markdown="{root}/throwaway/report.md",
        rows="{root}/throwaway/reproduction.csv",
    log:
        "{root}/logs/throwaway_section.log",
    conda:
        "../../envs/simcore.yaml"
    shell:
        "cat {input} > {output.markdown} && echo study > {output.rows} 2> {log}"


rule throwaway:
    input:
        study_targets("throwaway"),
"""
SCHEMA_SECTION = {
    "type": "object",
    "description": "a throwaway study",
    "default": {"traces": ["lublin-128"], "filter": "strict"},
    "properties": {"traces": {"type": "array", "items": {"type": "string"}}, "filter": {"type": "string"}},
}


@pytest.fixture(scope="module")
def workflow_with_a_new_study(tmp_path_factory):
    copy = tmp_path_factory.mktemp("new_study")
    local_traces = ("tests/fixtures/sacct", "tests/fixtures/slurm_twin/fair")  # the config's site logs
    for part in ("Snakefile", "workflow", "config", *local_traces):
        source = REPO / part
        (shutil.copytree if source.is_dir() else shutil.copy)(source, copy / part)
    before = {path.relative_to(copy) for path in copy.rglob("*") if path.is_file()}
    (copy / "workflow/rules/studies/throwaway.smk").write_text(STUDY_RULES)
    (copy / "workflow/report/throwaway.rst").write_text("One summary per trace of the throwaway study.\n")
    schema_path = copy / "workflow/schemas/config.schema.yaml"
    schema = yaml.safe_load(schema_path.read_text())
    schema["properties"]["throwaway"] = SCHEMA_SECTION
    schema_path.write_text(yaml.safe_dump(schema, sort_keys=False))
    changed = {
        path.relative_to(copy)
        for path in copy.rglob("*")
        if path.is_file()
        and (path.relative_to(copy) not in before or path.read_bytes() != (REPO / path.relative_to(copy)).read_bytes())
    }
    assert {str(path) for path in changed} == {
        "workflow/rules/studies/throwaway.smk",
        "workflow/report/throwaway.rst",
        "workflow/schemas/config.schema.yaml",
    }
    return copy


def dry_run(directory, *arguments):
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--cores", "1", "-d", str(directory), *arguments],
        cwd=directory,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout + done.stderr


def job_counts(output):
    table = output.split("Job stats:")[1].split("total")[0]
    return {line.split()[0]: int(line.split()[1]) for line in table.splitlines()[3:] if line.strip()}


@pytest.mark.workflow
def test_a_new_study_joins_the_campaign_through_its_own_files(workflow_with_a_new_study):
    copy = workflow_with_a_new_study
    demo = job_counts(dry_run(copy, "demo"))
    assert demo["throwaway_run"] == 1 and demo["throwaway_section"] == 1 and demo["report"] == 1
    alone = job_counts(dry_run(copy, "throwaway"))
    assert set(alone) == {"throwaway", "throwaway_run", "throwaway_section", "model_trace"}
    restricted = dry_run(copy, "all", "--config", "only=[lublin-128]")
    assert "  runs:    throwaway on lublin-128" in restricted
    assert job_counts(restricted)["throwaway_run"] == 1
    # the campaign without its trace: skipped, and said so
    assert "  skipped: throwaway: none of its traces (lublin-128) is in `only`" in dry_run(
        copy, "all", "--config", "only=[KTH-SP2]"
    )
