"""The services the flows and the user-facing commands share, above the connectors and the
warehouse (they read the registered providers and the warehouse) and below the flows:

- `config`: gpu-pricing.toml as pydantic models, its checks and one-line errors in
  `config_checks`; `budget_plans` reads the saved plan a budget may name (`plan_file`);
- `names`: the one parser of GPU, provider and pricing-model names;
- `alerts`: budgets and rules evaluated over the built marts (models.alert_rules decides),
  state changes recorded in `alert_events`;
- `notify`: their delivery through Apprise.

Nothing here imports the flows or `gpu_pricing` (the command line, the Python API, the
planner, the report).
"""
