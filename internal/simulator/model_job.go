package simulator

import "time"

// Job statuses.
const (
	jobPending   = 0
	jobSucceeded = 1
	jobFailed    = 2
)

type job struct {
	internalID   int64
	id           string
	cmd          string
	accountID    string
	userID       string
	instanceType string
	instanceID   string
	created      time.Time
	completed    time.Time
	status       int
	resultCode   int
	result       any
}
