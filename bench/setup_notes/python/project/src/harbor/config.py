from pydantic import PostgresDsn
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="HARBOR_", env_file=".env")

    database_url: PostgresDsn
    s3_endpoint: str | None = None
    s3_bucket: str = "harbor-raw-feeds"
    partner_timeout_s: float = 10.0
