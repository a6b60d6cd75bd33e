"""`python -m gpu_pricing.cli`: the same command line as the `gpu-pricing` script."""

from gpu_pricing.cli import main

main()
