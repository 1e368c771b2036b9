import structlog
from fastapi import FastAPI

from roomrota import __version__
from roomrota.api import health

log = structlog.get_logger()

app = FastAPI(title="roomrota", version=__version__)
app.include_router(health.router)


@app.on_event("startup")
async def startup() -> None:
    log.info("roomrota.startup", version=__version__)
