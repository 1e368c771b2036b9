package store

import "errors"

var (
	ErrUnknownStation = errors.New("unknown station")
	ErrInvalidReading = errors.New("invalid reading")
)
