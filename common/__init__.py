"""What every layer shares, at the bottom of the import order: it imports nothing of the
application, and every other package may import it.

- `errors`: the exception tree (`PricingError`, the root of everything gpu-pricing raises on
  purpose, `InvalidInput` for bad input, and the warehouse's `WarehouseError` family);
  the connectors' own failures (`connectors.errors.ConnectorError` and its kinds) derive
  from `PricingError`;
- `redact`: the masking every outward text passes through (logs, errors, command-line
  output, artifacts, alert payloads) and the masking of credentials in stored data;
- `schemas`: the shapes of the tables the connectors write and the warehouse keeps (the
  offer schema, pricing models, the staging and bookkeeping DDL, canonical JSON, the one
  clock of fetch times);
- `gpu`: the GPU identity rule (a source's GPU words, instance type and stated memory to the
  reference name, memory and form factor, from the GPU seeds under `sql/seeds/`);
- `providers`: the provider vocabulary, filled by each connector as it is built (its name
  and the providers its rows are about), so nothing here imports the connectors;
- `names`: the one parser of the names people type (GPUs, providers, regions, pricing
  models, precisions, counts).
"""
