package grpcserver

import (
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/northwind-labs/stationd/internal/store"
)

// toStatus maps domain errors to gRPC status codes. Handlers call this
// instead of building statuses inline.
func toStatus(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrUnknownStation):
		return status.Error(codes.NotFound, "unknown station")
	case errors.Is(err, store.ErrInvalidReading):
		return status.Error(codes.InvalidArgument, err.Error())
	default:
		return status.Error(codes.Internal, "internal error")
	}
}
