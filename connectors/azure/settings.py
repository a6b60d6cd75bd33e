"""Azure settings: endpoints, request filters, VM-family -> GPU map, and each exclusion
with why and a source."""

from __future__ import annotations

from models.conventions import HOURS_PER_YEAR as HOURS_PER_YEAR

PROVIDER = "azure"

RETAIL_URL = "https://prices.azure.com/api/retail/prices"
# 2023-01-01-preview: filter values are case-sensitive from this version on (docs), which
# our filter is written for; it also adds `savingsPlan` (1- and 3-year savings plan rates
# on Consumption items), published as savings_plan_1y / savings_plan_3y.
RETAIL_API_VERSION = "2023-01-01-preview"
# Request-side filter, one walk per region: $skip paging drifts when prices change during
# a long crawl (items move between pages as the catalogue changes), so a walk is kept short. Every Azure GPU VM size is an
# N-series size (NC, ND, NG, NV: learn.microsoft.com/azure/virtual-machines/sizes/overview),
# so `Standard_N` keeps the walk to GPU families and a few thousand items per region.
RETAIL_FILTER = (
    "serviceName eq 'Virtual Machines' and armRegionName eq '{region}' "
    "and contains(armSkuName, 'Standard_N')"
)
# A region's walk is a few thousand items, at most 100 (1000 with 2023-01-01-preview) per
# page: a walk past this many pages is a paging fault (a NextPageLink that never ends), not
# a price list, and fails the region instead of requesting forever.
RETAIL_MAX_PAGES = 500

# Regions with GPU VM sizes (learn.microsoft.com "Products available by region", 2026-11).
# Overridable from config (`[providers.azure] regions = [...]`).
DEFAULT_REGIONS = (
    "eastus",
    "eastus2",
    "southcentralus",
    "westus2",
    "westus3",
    "northcentralus",
    "centralus",
    "westus",
    "canadacentral",
    "brazilsouth",
    "westeurope",
    "northeurope",
    "uksouth",
    "francecentral",
    "germanywestcentral",
    "swedencentral",
    "switzerlandnorth",
    "norwayeast",
    "polandcentral",
    "italynorth",
    "uaenorth",
    "qatarcentral",
    "centralindia",
    "southindia",
    "japaneast",
    "koreacentral",
    "southeastasia",
    "eastasia",
    "australiaeast",
)

ARM_URL = "https://management.azure.com"
SUBSCRIPTION_ENV = "AZURE_SUBSCRIPTION_ID"

# reservation totals are spread over 365-day years: HOURS_PER_YEAR (seed_conventions.hours_per_year)

# Exclusions: (reason, why / source). Matched in parse.py with vectorised string tests.
EXCLUDE_WINDOWS = "windows: OS licence included in the price; we publish Linux prices"
EXCLUDE_LOW_PRIORITY = (
    "low priority: Azure Batch low-priority VMs are being retired (2025-09) and are not "
    "the Spot market; see learn.microsoft.com/azure/batch/batch-spot-vms"
)
EXCLUDE_DEVTEST = "devtest: DevTestConsumption prices need a Dev/Test subscription"
EXCLUDE_DEDICATED = "dedicated host / cloud services product, not a VM size price"
EXCLUDE_NOT_VM = "not a VM meter (empty armSkuName or serviceName is not Virtual Machines)"
EXCLUDE_FPGA = "FPGA size (NP-series, Xilinx U250), not a GPU"
EXCLUDE_TERM = "reservation term outside reserved_1y/reserved_3y"
EXCLUDE_SAVINGS_PLAN_TERM = "savings plan term outside savings_plan_1y/savings_plan_3y"

# The GPU of each VM size is not here: its family (`Standard_NC24s_v3` -> V100 PCIe 16 GB)
# is a row of sql/seeds/seed_instance_families.csv, citing Microsoft's page for that
# series, read by the shared GPU rule (common/gpu.py).
FPGA_PATTERN = r"^Standard_NP\d+s$"
