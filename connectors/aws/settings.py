"""AWS settings: endpoints, request filters, the GPU name and memory tables, and each
exclusion with why and a source."""

from __future__ import annotations

from models.conventions import HOURS_PER_YEAR as HOURS_PER_YEAR

PROVIDER = "aws"

# Endpoint names (docs/contract.md §2).
INSTANCE_TYPES = "instance_types"
SPOT_HISTORY = "spot_price_history"
PRICE_LIST = "price_list"
OFFER_CSV = "offer_csv"
SPOT_ADVISOR = "spot_advisor"
CAPACITY_BLOCKS = "capacity_blocks"
SAVINGS_PLANS = "savings_plans"
CREDENTIALED_ENDPOINTS = (INSTANCE_TYPES, SPOT_HISTORY, PRICE_LIST, CAPACITY_BLOCKS)

# --- regions ----------------------------------------------------------------------------
# The region list is botocore's own data (`Session().get_available_regions("ec2")`), so a
# new region appears with a botocore upgrade. Minus this skip-list (extend it from config
# `ctx.settings["aws_skip_regions"]` or env GPU_PRICING_AWS_SKIP_REGIONS, comma-separated):
# an opt-in region that the account has not enabled fails with AuthFailure and is recorded
# as a failed scope in `_loads`; list it here to stop it showing up every night.
DEFAULT_SKIP_REGIONS: tuple[str, ...] = ()
SKIP_REGIONS_ENV = "GPU_PRICING_AWS_SKIP_REGIONS"
# Local Zone / Wavelength codes (`us-east-1-nyc-1`, `us-west-2-lax-1`, `us-east-1-wl1-bos-wlz-1`)
# look like regions in the bulk offer files (`Region Code`) but have no EC2 API endpoint
# (the AWS bulk offer files list them): never a fetch scope, and their price rows are excluded.
LOCAL_ZONE_PATTERN = r"^[a-z]{2}(-gov)?-[a-z]+-\d-[a-z0-9-]+$"
EXCLUDE_LOCAL_ZONE = (
    "Local Zone / Wavelength location (region code {}): not an EC2 API region; its zones "
    "are priced separately and not comparable with the parent region"
)

# --- EC2 clients ----------------------------------------------------------------------
# botocore's own retries are switched off (max_attempts 1) because fetch.py retries
# throttling and 5xx itself, with exponential backoff and full jitter: one retry layer
# (N x M attempts otherwise), and the one that tests drive through botocore's Stubber.
CONNECT_TIMEOUT_S = 5  # gpuhunt uses 5 s; a disabled region fails fast
READ_TIMEOUT_S = 60
RETRY_ATTEMPTS = 5
RETRY_BACKOFF_S = 1.0
RETRY_MAX_BACKOFF_S = 20.0
# Error codes that mean "slow down / try again" (EC2 Query API and JSON services).
THROTTLING_CODES = frozenset(
    {
        "RequestLimitExceeded",  # EC2 (per account and region token buckets)
        "Throttling",
        "ThrottlingException",  # Price List API
        "RequestThrottled",
        "RequestThrottledException",
        "TooManyRequestsException",
        "InternalError",
        "InternalFailure",
        "InternalErrorException",  # Price List API fault
        "ServiceUnavailable",
        "Unavailable",
    }
)
# A region the account cannot use: recorded as a failed scope with this hint.
REGION_DISABLED_CODES = frozenset({"AuthFailure", "OptInRequired", "UnauthorizedOperation"})

# --- DescribeInstanceTypes / DescribeSpotPriceHistory ---------------------------------
INSTANCE_TYPES_PAGE_SIZE = 100  # DITMaxResults: min 5, max 100 (botocore model)
SPOT_PAGE_SIZE = 1000  # old model text: "between 1 and 1000, default 1000"
# Request-side filter to accelerated families. Every EC2 family starting with p or g is a
# GPU family (p2..p6, g2..g7e, gr6), trn/inf are Trainium/Inferentia, dl is Gaudi/AI100
# (aws.amazon.com/ec2/instance-types/#Accelerated_Computing, 2026-11). The parse keeps
# only types whose specs show accelerators, so a non-accelerated match is excluded there.
ACCELERATED_TYPE_PATTERNS = ("p*", "g*", "trn*", "inf*", "dl*")
SPOT_PRODUCT_DESCRIPTIONS = ("Linux/UNIX",)
# First run: this many days of spot history (AWS keeps 90). Later runs start at the
# newest stored point of the region. Config: ctx.settings["aws_spot_lookback_days"].
SPOT_LOOKBACK_DAYS = 30

# --- EC2 Capacity Blocks for ML (DescribeCapacityBlockOfferings) ----------------------
# Which types are sold as Capacity Blocks, and where: docs.aws.amazon.com/AWSEC2/latest/
# UserGuide/ec2-capacity-blocks.html (read 2026-11). One walk per (region, type, duration)
# listed here and in the regions being fetched; a type/region AWS adds later is picked up
# by extending this map or config `aws_capacity_block_types` ({type: [regions]}).
CAPACITY_BLOCK_TYPES: dict[str, tuple[str, ...]] = {
    "p5.48xlarge": ("us-east-1", "us-east-2", "us-west-2", "ap-northeast-1"),
    "p5e.48xlarge": ("us-east-2",),
    "p5en.48xlarge": ("us-east-2",),
    "p4d.24xlarge": ("us-east-2", "us-west-2"),
    "trn1.32xlarge": ("us-east-1", "ap-southeast-4"),
    "trn2.48xlarge": ("us-east-2",),
}
# Request-side terms. Durations: "1-day increments up to 14 days, 7-day increments up to
# 182 days" (CapacityDurationHours, required); one day and one week are asked by default
# (config `aws_capacity_block_hours`). Instance count: 1, 2, 4, 8, 16, 32 or 64; one
# instance by default (config `aws_capacity_block_instances`). Start dates: a block can
# start up to eight weeks ahead, so the window is [now, now + 56 days] (config
# `aws_capacity_block_days_ahead`).
CAPACITY_BLOCK_HOURS = (24, 168)
CAPACITY_BLOCK_INSTANCE_COUNT = 1
CAPACITY_BLOCK_DAYS_AHEAD = 56
CAPACITY_BLOCK_PAGE_SIZE = 1000  # DescribeCapacityBlockOfferingsMaxResults: 1..1000
CAPACITY_BLOCK_OPERATION = "describe_capacity_block_offerings"
# UltraServer offerings (UltraserverType set) price a rack of several instances whose
# per-instance split is not published in the offering: excluded, counted.
EXCLUDE_ULTRASERVER = "UltraServer offering {}: priced per UltraServer, not per instance"
EXCLUDE_CB_TENANCY = "Capacity Block tenancy {}: dedicated tenancy carries its own fee"

# --- Price List Query API ---------------------------------------------------------------
# The pricing endpoint lives in us-east-1 (also eu-central-1, ap-south-1), whatever the
# region priced (AWS Price List Query API docs).
PRICING_REGION = "us-east-1"
PRICING_PAGE_SIZE = 100  # GetProducts MaxResults 1..100
PRICING_SERVICE_CODE = "AmazonEC2"
# TERM_MATCH filters, one walk per (region, instance family): Linux, shared tenancy, no
# pre-installed software, capacity actually used (not a reservation's unused capacity),
# the on-demand market (capacity blocks are another market). Values as recorded in the
# price list (AWS Price List Query API docs, gpuhunt's filter on the same attributes).
PRICING_FILTERS = (
    ("operatingSystem", "Linux"),
    ("tenancy", "Shared"),
    ("preInstalledSw", "NA"),
    ("capacitystatus", "Used"),
    ("licenseModel", "No License required"),
)
# `instanceFamily` values of accelerated instances: "GPU instance" is recorded (the
# g5.48xlarge row of the 2025-09-12 offer CSV); "Machine Learning ASIC Instances" is the
# value the price list uses for trn*/inf* [unverified: seen in consumer code only].
PRICING_INSTANCE_FAMILIES = ("GPU instance", "Machine Learning ASIC Instances")

# --- bulk offer files (public, no credentials) ----------------------------------------
OFFERS_BASE_URL = "https://pricing.us-east-1.amazonaws.com"
REGION_INDEX_PATH = "/offers/v1.0/aws/AmazonEC2/current/region_index.json"
OFFER_METADATA_LINES = 5  # FormatVersion, Disclaimer, Publication Date, Version, OfferCode
# An offer file's Version ("20250912225308") is its publication time, UTC.
OFFER_VERSION_FORMAT = "%Y%m%d%H%M%S"
# Where the full download is streamed to before the GPU rows are kept (the full file is
# deleted afterwards unless ctx.settings["aws_keep_offer_csv"] is true). Config:
# ctx.settings["aws_cache_dir"] or env GPU_PRICING_CACHE_DIR.
CACHE_DIR_ENV = "GPU_PRICING_CACHE_DIR"
DOWNLOAD_CHUNK_BYTES = 1 << 20

# --- Savings Plans (public bulk price list) -----------------------------------------------
# The AWSComputeSavingsPlan offer holds both Compute Savings Plans and EC2 Instance Savings
# Plans rates (productFamily ComputeSavingsPlans / EC2InstanceSavingsPlans), per region:
# region_index.json lists `regions` as a list of {regionCode, versionUrl} (recorded
# 2025-09-11); each region file is {formatVersion, disclaimer, offerCode, version,
# publicationDate, regionCode, products: [{sku, productFamily, serviceCode, usageType,
# operation, attributes{purchaseOption, purchaseTerm, ...}}], terms: {savingsPlan: [{sku,
# description, effectiveDate, leaseContractLength{duration, unit}, rates: [{discountedSku,
# discountedUsageType, discountedOperation, discountedServiceCode, rateCode, unit,
# discountedRate{price, currency}, discountedRegionCode, discountedInstanceType}]}]}}
# (docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/reading-service-price-list-files-
# for-savings-plans.html). Each rate is the effective hourly price of one instance type
# under one plan.
SAVINGS_PLAN_INDEX_PATH = "/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json"
SAVINGS_PLAN_FAMILIES = {
    "ComputeSavingsPlans": "Compute Savings Plan",
    "EC2InstanceSavingsPlans": "EC2 Instance Savings Plan",
}
# The rates kept (at fetch, like the offer CSV's rows, and again in parse with reasons):
# EC2, Linux/UNIX (operation exactly "RunInstances"), shared tenancy (usage type
# "<prefix->BoxUsage:<type>"), accelerated instance types. A region file is tens of MB
# of every instance, OS, tenancy, Fargate and Lambda rate; the page request records the
# file's URL (it names the version), the version and the number of rates kept.
SAVINGS_PLAN_OPERATION = "RunInstances"
SAVINGS_PLAN_USAGE = r"^([A-Z0-9]+-)?BoxUsage:"
EXCLUDE_SP_SCOPE = "not a Linux shared-tenancy EC2 instance rate ({} / {})"
EXCLUDE_SP_TERM = "savings plan term {} {} is not 1 or 3 years"

# --- Spot Instance Advisor (public) -------------------------------------------------------
SPOT_ADVISOR_URL = "https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json"
SPOT_ADVISOR_OS = "Linux"
# Bucket label -> the upper bound of the interruption-frequency range in percent. The
# feed's own `max` values (5, 11, 16, 22, 100) are not the label bounds (the Spot Instance Advisor feed's `ranges`),
# so the label is what we read; ">20%" has no upper bound and is taken as 100.
INTERRUPTION_RATE_MAX_PCT = {"<5%": 5, "5-10%": 10, "10-15%": 15, "15-20%": 20, ">20%": 100}

# --- prices -------------------------------------------------------------------------------
# reserved upfront fees are spread over 365-day years: HOURS_PER_YEAR (seed_conventions.hours_per_year)
LEASE_YEARS = {"1yr": 1, "3yr": 3}
OFFERING_CLASSES = ("standard", "convertible")
PURCHASE_OPTIONS = ("No Upfront", "Partial Upfront", "All Upfront")

# Offer CSV rows kept at fetch time and in parse, by header name: (column, accepted
# values, why). A row failing one is out of scope (excluded, with this reason, in parse;
# not kept by the fetch-time GPU-row filter). Values recorded in the 2025-09-12 file
# (AWS bulk offer file history); the same scope as the Price List filters above.
OFFER_CSV_SCOPE: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "Product Family",
        ("Compute Instance", "Compute Instance (bare metal)"),
        "not an instance price",
    ),
    ("Operating System", ("Linux",), "not Linux: OS licence included in the price"),
    ("Tenancy", ("Shared",), "dedicated or host tenancy"),
    ("Pre Installed S/W", ("NA", ""), "pre-installed software (SQL Server ...) included"),
    ("CapacityStatus", ("Used",), "capacity-reservation accounting row, not a usage price"),
    ("License Model", ("No License required", ""), "bring-your-own-licence row"),
    ("MarketOption", ("OnDemand", ""), "not the on-demand market (capacity block)"),
    ("Currency", ("USD", ""), "not priced in USD"),
)
OFFER_CSV_ACCELERATED_FAMILIES = PRICING_INSTANCE_FAMILIES
# Instance-type prefixes of accelerated families, the regex form of ACCELERATED_TYPE_PATTERNS.
ACCELERATED_TYPE_REGEX = r"^(p|g|trn|inf|dl)[0-9a-z-]*\."

# Capacity-block-only types: no on-demand list price exists (p5e, p5en, 2025-2026: sold
# through EC2 Capacity Blocks for ML and spot). Nothing here invents one; a price row
# for these that is not the on-demand market is excluded by the MarketOption rule above.
CAPACITY_BLOCK_ONLY = ("p5e.48xlarge", "p5en.48xlarge")

# --- GPU names and memory -----------------------------------------------------------------
# DescribeInstanceTypes `GpuInfo.Gpus[].Name` / `NeuronInfo.NeuronDevices[].Name` and the
# reported MiB per (full) GPU are handed to the shared GPU rule (common/gpu.py):
# the name as the reference spells it ("RTX PRO SERVER 6000" -> "RTX PRO 6000", "T4g" ->
# "T4G"; one the reference lacks upper-cased as AWS spells it: "RTX PRO 4500"), and the
# memory snapped to the marketed size (AWS reports usable memory a little under it: 22,888
# MiB for the 24 GB A10G and L4, 275,040 MiB for the 288 GB B300).
