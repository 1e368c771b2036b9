CREATE TABLE stations (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    latitude    DOUBLE PRECISION NOT NULL,
    longitude   DOUBLE PRECISION NOT NULL
);

CREATE TABLE readings (
    station_id     TEXT NOT NULL REFERENCES stations (id),
    observed_at    TIMESTAMPTZ NOT NULL,
    temperature_c  DOUBLE PRECISION,
    humidity_pct   DOUBLE PRECISION,
    pressure_hpa   DOUBLE PRECISION,
    wind_speed_ms  DOUBLE PRECISION,
    PRIMARY KEY (station_id, observed_at)
);
