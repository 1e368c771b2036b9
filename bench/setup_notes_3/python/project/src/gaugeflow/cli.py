from datetime import date

import duckdb
import httpx
import pandas as pd
import typer
from tenacity import retry, stop_after_attempt, wait_exponential

from gaugeflow.settings import Settings

app = typer.Typer(help="River gauge ingestion pipeline.")


@retry(stop=stop_after_attempt(5), wait=wait_exponential(multiplier=1, max=30))
def fetch_readings(settings: Settings, day: date) -> pd.DataFrame:
    headers = {"X-Api-Key": settings.gauge_api_key.get_secret_value()}
    with httpx.Client(base_url=settings.gauge_api_base_url, headers=headers, timeout=30) as client:
        resp = client.get("/readings", params={"date": day.isoformat()})
        resp.raise_for_status()
    return pd.DataFrame(resp.json()["readings"])


@app.command()
def run(date_: str = typer.Option(date.today().isoformat(), "--date")) -> None:
    """Fetch one day of readings and load them into DuckDB."""
    settings = Settings()
    frame = fetch_readings(settings, date.fromisoformat(date_))
    frame = frame[frame["flow_cms"] >= 0]
    with duckdb.connect(settings.duckdb_path) as con:
        con.execute("CREATE TABLE IF NOT EXISTS readings AS SELECT * FROM frame LIMIT 0")
        con.execute("INSERT INTO readings SELECT * FROM frame")
    typer.echo(f"loaded {len(frame)} readings for {date_}")
