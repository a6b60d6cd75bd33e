"""Cost formulas as pure functions: no I/O, no DuckDB, plain floats in and out.

- ``models.training``: 6ND training FLOPs, GPU-hours, wall clock, cost per token, MFU/HFU.
- ``models.inference``: 2N inference FLOPs, GPU-seconds, cost per request and per 1K tokens.
- ``models.breakeven``: buy vs rent, spot vs on-demand with checkpointing, reserved vs on-demand.
- ``models.scaling``: cost vs MFU, budget/deadline planning on an efficiency curve,
  Chinchilla allocation, data-parallel all-reduce cost.
- ``models.costs``: total run cost (compute, storage, transfer, failed runs) and the shared
  unit conventions (720 hours per month).

Invalid inputs raise ``ValueError`` with a one-line message naming the input and its value.
"""
