"""AWS: EC2 (instance specs, spot price history, Capacity Blocks for ML offerings), the
Price List Query API and the public bulk offer CSV (on-demand and reserved list prices),
and the Spot Instance Advisor (interruption buckets). Endpoint, auth and quirks:
connectors/aws/README.md."""

from connectors.aws import settings
from connectors.kit.connector import APPEND, SNAPSHOT, Connector, ProviderDoc, later

CONNECTOR = Connector(
    name=settings.PROVIDER,
    endpoints={
        settings.INSTANCE_TYPES: SNAPSHOT,
        settings.SPOT_HISTORY: APPEND,
        settings.PRICE_LIST: SNAPSHOT,
        settings.OFFER_CSV: SNAPSHOT,
        settings.SPOT_ADVISOR: SNAPSHOT,
        settings.CAPACITY_BLOCKS: SNAPSHOT,
        settings.SAVINGS_PLANS: SNAPSHOT,
    },
    fetch_live=later("connectors.aws.fetch", "fetch_live"),
    parse_pages=later("connectors.aws.parse", "parse_pages"),
    credentials=(
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_SECURITY_TOKEN",
    ),
    # spot price points, instance specs, Spot Advisor buckets (parse.STAGED)
    staged=later("connectors.aws.parse", "STAGED"),
    # the offer files' Version is their publication time: fetches start from the newest
    source_version_format=settings.OFFER_VERSION_FORMAT,
    doc=ProviderDoc(
        source=(
            "EC2 DescribeSpotPriceHistory, DescribeInstanceTypes and "
            "DescribeCapacityBlockOfferings, Price List Query API, the public bulk offer CSV and "
            "Savings Plans files, the Spot Instance Advisor"
        ),
        gives=(
            "spot history per AZ (incremental), on-demand and reserved, Compute / EC2 Instance "
            "Savings Plans, Capacity Blocks for ML (upfront fee per GPU-hour, dated), "
            "interruption buckets"
        ),
        auth="boto3 default chain; the bulk CSV, Savings Plans file and Spot Advisor need none",
    ),
)
