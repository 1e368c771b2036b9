from functools import lru_cache

from pydantic import SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ROOMROTA_", env_file=".env")

    database_url: str
    jwt_secret: SecretStr
    calendar_base_url: str = "https://calendar.staging.harbourstreet.example"
    log_level: str = "INFO"


@lru_cache
def get_settings() -> Settings:
    return Settings()  # type: ignore[call-arg]
