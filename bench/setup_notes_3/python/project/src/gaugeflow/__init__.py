"""gaugeflow: river gauge ingestion pipeline."""

__version__ = "0.4.1"
