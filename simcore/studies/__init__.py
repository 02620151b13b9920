"""One package per study: its computation (`study.py`), its `simcore`
subcommands (`commands.py`), its report section (`report.py`) and its
figures (`figures.py`). A study imports the engine, the workloads and the
reporting layer, never another study."""
