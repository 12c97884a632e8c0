package cloudstack

import (
	"context"
	"fmt"

	csgo "github.com/apache/cloudstack-go/v2/cloudstack"
)

// ListZones lists zones, all pages.
func (c *Client) ListZones(ctx context.Context) ([]Zone, error) {
	const command = "listZones"
	return collectPages(ctx, command, c.pageSize, func(z Zone) string { return z.ID },
		func(ctx context.Context, page, pageSize int) ([]Zone, int, error) {
			r, _, err := call(ctx, c, command, callOpts{read: true},
				func(cs *csgo.CloudStackClient) (*csgo.ListZonesResponse, error) {
					lp := cs.Zone.NewListZonesParams()
					lp.SetPage(page)
					lp.SetPagesize(pageSize)
					return cs.Zone.ListZones(lp)
				})
			if err != nil {
				return nil, 0, err
			}
			out := make([]Zone, 0, len(r.Zones))
			for _, z := range r.Zones {
				out = append(out, Zone{ID: z.Id, Name: z.Name})
			}
			return out, r.Count, nil
		})
}

// ListServiceOfferings lists compute offerings, all pages.
func (c *Client) ListServiceOfferings(ctx context.Context, p ListServiceOfferingsParams) ([]ServiceOffering, error) {
	const command = "listServiceOfferings"
	return collectPages(ctx, command, c.pageSize, func(o ServiceOffering) string { return o.ID },
		func(ctx context.Context, page, pageSize int) ([]ServiceOffering, int, error) {
			r, _, err := call(ctx, c, command, callOpts{read: true},
				func(cs *csgo.CloudStackClient) (*csgo.ListServiceOfferingsResponse, error) {
					lp := cs.ServiceOffering.NewListServiceOfferingsParams()
					if p.Name != "" {
						lp.SetName(p.Name)
					}
					if p.ZoneID != "" {
						lp.SetZoneid(p.ZoneID)
					}
					lp.SetPage(page)
					lp.SetPagesize(pageSize)
					return cs.ServiceOffering.ListServiceOfferings(lp)
				})
			if err != nil {
				return nil, 0, err
			}
			out := make([]ServiceOffering, 0, len(r.ServiceOfferings))
			for _, o := range r.ServiceOfferings {
				out = append(out, ServiceOffering{ID: o.Id, Name: o.Name, CPUNumber: o.Cpunumber, Memory: o.Memory})
			}
			return out, r.Count, nil
		})
}

// ListProjects lists projects, all pages, with listall.
func (c *Client) ListProjects(ctx context.Context, p ListProjectsParams) ([]Project, error) {
	const command = "listProjects"
	return collectPages(ctx, command, c.pageSize, func(prj Project) string { return prj.ID },
		func(ctx context.Context, page, pageSize int) ([]Project, int, error) {
			r, _, err := call(ctx, c, command, callOpts{read: true},
				func(cs *csgo.CloudStackClient) (*csgo.ListProjectsResponse, error) {
					lp := cs.Project.NewListProjectsParams()
					if p.Name != "" {
						lp.SetName(p.Name)
					}
					lp.SetListall(true)
					lp.SetPage(page)
					lp.SetPagesize(pageSize)
					return cs.Project.ListProjects(lp)
				})
			if err != nil {
				return nil, 0, err
			}
			out := make([]Project, 0, len(r.Projects))
			for _, prj := range r.Projects {
				out = append(out, Project{ID: prj.Id, Name: prj.Name, DisplayText: prj.Displaytext, State: prj.State})
			}
			return out, r.Count, nil
		})
}

// CloudStackVersion returns listCapabilities' cloudstackversion.
func (c *Client) CloudStackVersion(ctx context.Context) (string, error) {
	const command = "listCapabilities"
	v, _, err := call(ctx, c, command, callOpts{read: true},
		func(cs *csgo.CloudStackClient) (string, error) {
			r, err := cs.Configuration.ListCapabilities(cs.Configuration.NewListCapabilitiesParams())
			if err != nil {
				return "", err
			}
			if r.Capabilities == nil {
				return "", nil
			}
			return r.Capabilities.Cloudstackversion, nil
		})
	if err != nil {
		return "", err
	}
	if v == "" {
		return "", &Error{Command: command, Text: "the response has no cloudstackversion"}
	}
	return v, nil
}

// ListAsyncJobs lists the async jobs the caller can see (listAsyncJobs
// with listall: every account's for an administrator, the caller's own
// otherwise), all pages.
func (c *Client) ListAsyncJobs(ctx context.Context) ([]AsyncJob, error) {
	const command = "listAsyncJobs"
	return collectPages(ctx, command, c.pageSize, func(j AsyncJob) string { return j.ID },
		func(ctx context.Context, page, pageSize int) ([]AsyncJob, int, error) {
			r, _, err := call(ctx, c, command, callOpts{read: true},
				func(cs *csgo.CloudStackClient) (*csgo.ListAsyncJobsResponse, error) {
					lp := cs.Asyncjob.NewListAsyncJobsParams()
					lp.SetListall(true)
					lp.SetPage(page)
					lp.SetPagesize(pageSize)
					return cs.Asyncjob.ListAsyncJobs(lp)
				})
			if err != nil {
				return nil, 0, err
			}
			out := make([]AsyncJob, 0, len(r.AsyncJobs))
			for _, j := range r.AsyncJobs {
				out = append(out, AsyncJob{ID: j.JobID, Command: j.Cmd, InstanceType: j.Jobinstancetype,
					InstanceID: j.Jobinstanceid, Status: j.Jobstatus})
			}
			return out, r.Count, nil
		})
}

// QueryAsyncJob polls a job once (queryAsyncJobResult).
func (c *Client) QueryAsyncJob(ctx context.Context, jobID string) (JobStatus, error) {
	st, _, err := call(ctx, c, "queryAsyncJobResult", callOpts{read: true},
		func(cs *csgo.CloudStackClient) (JobStatus, error) {
			// cloudstack-go's QueryAsyncJobResult hides three tries 500 ms
			// apart; one plain request keeps retries, counts and timing ours.
			params := &csgo.CustomServiceParams{}
			params.SetParam("jobid", jobID)
			var r csgo.QueryAsyncJobResultResponse
			custom, ok := cs.Custom.(*csgo.CustomService)
			if !ok {
				return JobStatus{}, fmt.Errorf("cloudstack-go's custom request service has type %T", cs.Custom)
			}
			if err := custom.CustomRequest("queryAsyncJobResult", params, &r); err != nil {
				return JobStatus{}, err
			}
			id := r.JobID
			if id == "" {
				id = jobID
			}
			return JobStatus{JobID: id, Status: r.Jobstatus, ResultCode: r.Jobresultcode, Result: r.Jobresult}, nil
		})
	return st, err
}
