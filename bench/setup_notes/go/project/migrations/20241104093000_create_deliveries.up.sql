CREATE TABLE deliveries (
    id            uuid PRIMARY KEY,
    endpoint_id   uuid        NOT NULL,
    status        smallint    NOT NULL DEFAULT 0,
    attempts      integer     NOT NULL DEFAULT 0,
    payload       jsonb       NOT NULL,
    next_attempt  timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deliveries_due_idx ON deliveries (status, next_attempt);
