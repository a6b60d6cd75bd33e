"""Builders of provider API responses in their real shapes (each module names the recordings
its shapes follow, published in open-source repositories). Only the values vary; every key
and type is the recorded one. Used by the tests, the demo-snapshot builders in `scripts/`
and the benchmarks; no module of the application imports them (import-linter checks it),
and they are not part of the installed package."""
