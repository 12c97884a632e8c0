package model

import "time"

// Job statuses.
const (
	JobPending   = 0
	JobSucceeded = 1
	JobFailed    = 2
)

type Job struct {
	InternalID   int64
	ID           string
	Cmd          string
	AccountID    string
	UserID       string
	InstanceType string
	InstanceID   string
	Created      time.Time
	Completed    time.Time
	Status       int
	ResultCode   int
	Result       any
}
