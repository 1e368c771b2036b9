"""Scrapy settings for recall_watch."""

import os

BOT_NAME = "recall_watch"
SPIDER_MODULES = ["recall_watch.spiders"]
NEWSPIDER_MODULE = "recall_watch.spiders"

USER_AGENT = "recall-watch/0.7 (+https://github.com/recall-watch/recall-watch)"
ROBOTSTXT_OBEY = True
CONCURRENT_REQUESTS_PER_DOMAIN = 2
DOWNLOAD_DELAY = 1.0
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_TARGET_CONCURRENCY = 1.0
HTTPCACHE_ENABLED = os.environ.get("HTTPCACHE_ENABLED") == "1"

REQUEST_FINGERPRINTER_IMPLEMENTATION = "2.7"
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
FEED_EXPORT_ENCODING = "utf-8"

# Feed storage: MinIO from docker-compose locally, the real bucket in production.
AWS_ACCESS_KEY_ID = os.environ.get("AWS_ACCESS_KEY_ID")
AWS_SECRET_ACCESS_KEY = os.environ.get("AWS_SECRET_ACCESS_KEY")
AWS_ENDPOINT_URL = os.environ.get("AWS_ENDPOINT_URL")
FEEDS = {
    os.environ.get("FEED_URI", "s3://recall-watch-feeds/%(name)s/%(time)s.jsonl"): {
        "format": "jsonlines",
        "encoding": "utf8",
        "store_empty": False,
    },
}

SENTRY_DSN = os.environ.get("SENTRY_DSN")
if SENTRY_DSN:
    import sentry_sdk

    sentry_sdk.init(
        dsn=SENTRY_DSN,
        environment=os.environ.get("DEPLOY_ENV", "dev"),
        traces_sample_rate=0.0,
    )
