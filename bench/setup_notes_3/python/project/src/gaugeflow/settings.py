from pydantic import SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    gauge_api_base_url: str = "https://api.gauges.example.org/v2"
    gauge_api_key: SecretStr
    s3_endpoint_url: str | None = None
    s3_bucket: str = "gaugeflow-raw"
    duckdb_path: str = "data/gauges.duckdb"
