// Package bench measures the provider's performance claims against a
// reference measured in the same run: the job waiter against cloudstack-go's
// GetAsyncJobResult, the drift check against its critical-path lower bound,
// fleet drift growth, and the drift comparison at scale. Figures are
// reported, never asserted: the machine is noisy. The runner is
// internal/cmd/cksbench (make bench).
package bench
