"""Food Standards Agency (UK) food and allergy alerts."""

from collections.abc import Iterator
from typing import Any

import scrapy
from dateutil import parser as dateparser
from scrapy.http import Response


class FsaAlertsSpider(scrapy.Spider):
    name = "fsa_alerts"
    allowed_domains = ["data.food.gov.uk"]
    start_urls = ["https://data.food.gov.uk/food-alerts/id?_limit=100&_sort=-created"]

    def parse(self, response: Response, **kwargs: Any) -> Iterator[Any]:
        payload = response.json()
        for alert in payload.get("items", []):
            created = alert.get("created")
            yield {
                "source": "fsa",
                "notation": alert.get("notation"),
                "title": alert.get("title"),
                "alert_type": [t.split("/")[-1] for t in alert.get("type", [])],
                "published_at": dateparser.isoparse(created).isoformat() if created else None,
                "url": alert.get("alertURL"),
            }
        next_page = payload.get("meta", {}).get("next")
        if next_page:
            yield response.follow(next_page, callback=self.parse)
