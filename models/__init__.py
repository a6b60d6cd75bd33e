"""Cost formulas as pure functions: no I/O, plain floats in and out (the serving roofline
runs its SQL definition in an in-memory DuckDB).

- ``models.training``: 6ND training FLOPs, GPU-hours, wall clock, cost per token, MFU/HFU.
- ``models.serving``: serving on a roofline (memory bandwidth or compute per decode step), run
  from the one SQL definition, the table macro ``serving_roofline``.
- ``models.breakeven``: buy vs rent, spot vs on-demand with checkpointing, reserved vs on-demand.
- ``models.scaling``: cost vs MFU, budget/deadline planning on an efficiency curve,
  Chinchilla allocation, data-parallel all-reduce cost.
- ``models.costs``: total run cost (compute, storage, transfer, failed runs) and the shared
  unit conventions (720 hours per month).

Invalid inputs raise ``ValueError`` with a one-line message naming the input and its value.
"""
