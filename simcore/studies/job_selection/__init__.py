"""Job selection: the field's RL benchmark over the exact EASY core (docs/job_selection.md)."""
