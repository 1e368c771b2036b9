package delivery

//go:generate go run golang.org/x/tools/cmd/stringer -type=Status -trimprefix=Status

// Status is the lifecycle state of a single webhook delivery attempt.
type Status int

const (
	StatusPending Status = iota
	StatusInFlight
	StatusDelivered
	StatusFailed
	StatusDeadLettered
)
