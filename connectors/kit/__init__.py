"""The connector kit: what every connector is built from, and the one public face of the
connectors package to the flows, the warehouse loaders, the command line and the tests.

- `connector`: the contract a provider package exposes (`Connector`, `Parsed`,
  `StagedTable`, `Series`, `offers_only`);
- `page`: one recorded response (`Page`), the pages frame parse receives, `FetchContext`,
  `FetchFailure`, `per_scope`;
- `http`: the one HTTP client (retries, credentials bound to their host) and JSON GETs;
- `rest`: the declarative JSON endpoint (`JsonEndpoint`, paging, `rest_connector`);
- `auth`: credentials from the environment and the auth steps (OAuth2 client
  credentials, a request-signing hook);
- `checks`: credentials from the environment and fetch-time shape checks;
- `decode`: pages to rows (`explode_pages`) with the per-page drift guard;
- `money`, `fx`, `gpu`: exact money, recorded conversion rates, GPU form factors;
- `normalise`: the parse-tail defaults (`parse_tail`) and the rules every provider's
  offers pass through after its parse;
- `snapshot`: the snapshot directory format (record and replay).
"""
