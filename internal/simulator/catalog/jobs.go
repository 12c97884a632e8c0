package catalog

import (
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// renderJob is the queryAsyncJobResult response.
func (s *Catalog) renderJob(j *model.Job) map[string]any {
	out := map[string]any{
		"jobid":           j.ID,
		"accountid":       j.AccountID,
		"userid":          j.UserID,
		"cmd":             j.Cmd,
		"created":         wire.CSTime(j.Created),
		"jobstatus":       j.Status,
		"jobprocstatus":   0,
		"jobresultcode":   j.ResultCode,
		"jobinstancetype": j.InstanceType,
		"jobinstanceid":   j.InstanceID,
	}
	if a := s.DB.Account(j.AccountID); a != nil {
		out["account"] = a.Name
		out["domainid"] = a.DomainID
		out["domainpath"] = "ROOT"
	}
	if j.Status != model.JobPending {
		out["completed"] = wire.CSTime(j.Completed)
		out["jobresulttype"] = "object"
		out["jobresult"] = j.Result
	}
	return out
}

// cmdListAsyncJobs is ListAsyncJobsCmd (QueryManagerImpl.searchForAsyncJobs):
// the jobs of the caller's account, or with listall every account's for an
// admin, oldest first.
func cmdListAsyncJobs(s *Catalog, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	scope, err := s.ListScope(c, p)
	if err != nil {
		return nil, err
	}
	items := []map[string]any{}
	for _, j := range s.DB.Jobs {
		if scope(j.AccountID) {
			items = append(items, s.renderJob(j))
		}
	}
	return s.ListBody(p, "asyncjobs", items)
}

func cmdQueryAsyncJobResult(s *Catalog, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	if _, err := p.Require("jobid"); err != nil {
		return nil, err
	}
	j, err := wire.ResolveParam(p, "jobid", s.DB.Job)
	if err != nil {
		return nil, err
	}
	if err := s.CheckAccess(c, j.AccountID, "async job "+j.ID); err != nil {
		return nil, err
	}
	return s.renderJob(j), nil
}
