// Package testutil holds the helpers that tests of several packages share:
// a loopback listener that parallel test processes do not collide on, SSH
// keys and an SSH agent, and the check of a drift result's finding kinds.
//
// Only test files import it (depguard keeps production code off it). The
// embedded CloudStack simulator for tests is package simtest, which the
// benchmarks use too.
package testutil
