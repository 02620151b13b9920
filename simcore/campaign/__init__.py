"""The workflow's side of the library: the configuration read against its schema (`config`), the
studies that register themselves with their outputs (`studies`), and each run's settings — the
campaign's, the demo's and the artifact configuration's, restricted to `only` (`settings`).

The Snakefile and `workflow/rules/*.smk` hold rules; what they decide lives here, tested in
tests/campaign/.
"""
