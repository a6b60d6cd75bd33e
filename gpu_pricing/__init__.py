"""gpu-pricing's application layer: the Python API, the command line's helpers, planning
and publishing. Thin readers of the warehouse's marts and macros."""
