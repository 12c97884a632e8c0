// Package sharedreads coalesces the reads of one provider process: while
// Terraform refreshes the resources and data sources of one plan in
// parallel, reads of the same kind for the same owner (the clusters an
// account or its projects may see, the firewall rules and port forwards of
// an account or a project) are served from one list call, shared by every
// reader and indexed, instead of one call per cluster. A process shares
// whole lists only from its ShareFrom-th cluster read (DefaultShareFrom):
// before, each read is asked by itself, and only the same read asked again
// while fresh (a cluster's refresh, then its plan's checks) is shared, so
// that a workspace of a few clusters never lists a whole cloud.
//
// Correctness comes first, so the sharing is narrow on purpose:
//
//   - Only a context marked with Shared may be served a shared list: the
//     resources' refresh and the data sources mark theirs. Everything else
//     reads fresh, and in particular every read an apply acts on (the rule
//     planner, the pre-flight of a scale, the read-back after a change),
//     because those contexts are never marked.
//   - A list serves readers for TTL after it was answered, and only
//     inside the process that asked: Terraform starts a new provider process
//     for each plan and each apply, so nothing outlives an operation.
//   - Every call that may change something (a create, a delete, a scale, a
//     job poll, whose answer tells that a job changed something) drops every
//     shared list before and after it: a read that follows a write through
//     this process is never served a list taken before it.
//   - Concurrent readers of one list wait for the one call in flight
//     (singleflight); a failed list is not kept.
//   - A shared list answers only what the server's own filter would: the
//     rules of one IP address or network are the account's (or project's)
//     rules with that IP address or network, as FirewallManagerImpl.
//     listFirewallRules and RulesManagerImpl.listPortForwardingRules filter
//     them. A read the shared list cannot answer for sure (a cluster not in
//     it, no rule on an address, which may be one the server refuses) or
//     that a failed shared list left unanswered is asked of CloudStack
//     itself.
package sharedreads
