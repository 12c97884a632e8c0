package simulator

import (
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// The write ledger of what clusters are made from: Kubernetes versions,
// their ISOs and CNI configurations. A scenario's id is "version:<uuid>" or
// "cniconfig:<uuid>"; its view holds the version's fields as
// listKubernetesSupportedVersions shows them (version.<field>), its ISO's as
// listIsos shows them to an admin (iso.<field>, downloadState and
// downloadPercent from downloaddetails), or the CNI configuration's as
// listCniConfiguration shows it (cniconfig.<field>).

func (e *testEnv) catalogView(kind, id string) map[string]string {
	e.t.Helper()
	out := map[string]string{}
	switch kind {
	case "version":
		status, _ := e.adminCall("listKubernetesSupportedVersions", url.Values{"id": {id}})
		if status != 200 {
			return nil // removed: the id no longer resolves
		}
		v := e.versionFields(id)
		for k, val := range v {
			out["version."+k] = val
		}
		if status, _ := e.adminCall("listIsos", url.Values{"id": {v["isoid"]}}); status == 200 {
			for k, val := range e.isoFields(v["isoid"]) {
				out["iso."+k] = val
			}
		}
	case "cniconfig":
		list := e.listCNI(e.info.APIKey, e.info.SecretKey, url.Values{"listall": {"true"}})
		for _, c := range list {
			if c["id"] != id {
				continue
			}
			for k, val := range stringFields(c) {
				out["cniconfig."+k] = val
			}
		}
	default:
		e.t.Fatalf("no catalog view of %s", kind)
	}
	return out
}

// addedVersionKeys are the fields addKubernetesSupportedVersion writes: the
// version row and its ISO's, with the download not started.
var addedVersionKeys = slices.Concat(
	prefixed("version.", "id name semanticversion arch supportsha supportsautoscaling state mincpunumber minmemory created "+
		"isoid isoname isostate directdownload zoneid zonename"),
	prefixed("iso.", "id name displaytext ispublic isfeatured isextractable bootable isready crossZones format created "+
		"account domain domainid directdownload arch hasannotations checksum zoneid zonename status url downloadState downloadPercent"))

func prefixed(prefix, fields string) []string {
	var out []string
	for _, f := range strings.Fields(fields) {
		out = append(out, prefix+f)
	}
	return out
}

// everyField expects each key to be written, then the checks given for some
// of them.
func everyField(keys []string, checks map[string]ledgerCheck) map[string]ledgerCheck {
	want := map[string]ledgerCheck{}
	for _, k := range keys {
		want[k] = written
	}
	maps.Copy(want, checks)
	return want
}

// everyFieldCleared expects each field of a view to be gone.
func everyFieldCleared(view map[string]string) map[string]ledgerCheck {
	want := map[string]ledgerCheck{}
	for _, k := range slices.Sorted(maps.Keys(view)) {
		want[k] = cleared
	}
	return want
}

const ledgerISOURL = "https://download.example.org/cks/setup-1.35.2.iso"

// addLedgerVersion adds 1.35.2 for the zone and returns its scenario id.
func (e *testEnv) addLedgerVersion(extra ...string) string {
	e.t.Helper()
	return "version:" + e.addVersion(newVersionParams("1.35.2", ledgerISOURL, append([]string{"zoneid", e.info.ZoneID}, extra...)...))["id"]
}

func catalogScenarios() []ledgerScenario {
	slowDownload := Options{ISODownloadDuration: time.Hour}
	none := func(*testEnv) string { return "" }
	return []ledgerScenario{
		{op: "version-add", name: "for a zone", opts: slowDownload, setup: none,
			run: func(e *testEnv, _ string) string { return e.addLedgerVersion("checksum", "{SHA-256}abc") },
			writes: func(e *testEnv, _ string) map[string]ledgerCheck {
				return everyField(addedVersionKeys, map[string]ledgerCheck{
					"version.name": is("v1.35.2-" + seedZoneName), "version.state": is("Enabled"),
					"version.isostate": is(model.ISOCreating), "version.zoneid": is(e.info.ZoneID),
					"iso.name": is("v1.35.2-" + seedZoneName + "-Kubernetes-Binaries-ISO"), "iso.account": is("system"),
					"iso.ispublic": is("true"), "iso.bootable": is("false"), "iso.isready": is("false"),
					"iso.url": is(ledgerISOURL), "iso.checksum": is("{SHA-256}abc"),
				})
			}},
		{op: "iso-download", name: "succeeds", opts: Options{ISODownloadDuration: 100 * time.Millisecond},
			setup: func(e *testEnv) string { return e.addLedgerVersion() },
			run:   func(e *testEnv, id string) string { e.waitISO(id[len("version:"):]); return id },
			writes: func(*testEnv, string) map[string]ledgerCheck {
				return map[string]ledgerCheck{"version.isostate": is(model.ISOReady), "iso.isready": is("true"),
					"iso.status": is("Successfully Installed"), "iso.downloadState": is(model.DownloadDone),
					"iso.downloadPercent": is("100")}
			}},
		{op: "iso-download", name: "fails", opts: Options{ISODownloadDuration: 100 * time.Millisecond},
			setup: func(e *testEnv) string {
				if err := e.sim.SetISODownload(ledgerISOURL, ISODownload{Error: "HTTP Server returned 404 (expected 200 OK)"}); err != nil {
					e.t.Fatal(err)
				}
				return e.addLedgerVersion()
			},
			run: func(e *testEnv, id string) string { e.waitISO(id[len("version:"):]); return id },
			writes: func(*testEnv, string) map[string]ledgerCheck {
				return map[string]ledgerCheck{"version.isostate": is(model.ISOAllocated), "iso.status": is("HTTP Server returned 404 (expected 200 OK)"),
					"iso.downloadState": is(model.DownloadError), "iso.downloadPercent": written}
			}},
		{op: "version-update", name: "disable", setup: func(e *testEnv) string { return "version:" + e.info.KubernetesVersions["1.34.2"] },
			run: func(e *testEnv, id string) string {
				if status, body := e.adminCall("updateKubernetesSupportedVersion", url.Values{"id": {id[len("version:"):]}, "state": {"Disabled"}}); status != 200 {
					e.t.Fatalf("update: %d %v", status, body)
				}
				return id
			},
			writes: func(*testEnv, string) map[string]ledgerCheck {
				return map[string]ledgerCheck{"version.state": is("Disabled")}
			}},
		{op: "version-delete", name: "unused", setup: func(e *testEnv) string { return e.addLedgerVersion("directdownload", "true") },
			run: func(e *testEnv, id string) string { e.mustSucceed(e.deleteVersion(id[len("version:"):])); return id },
			writes: func(e *testEnv, id string) map[string]ledgerCheck {
				return everyFieldCleared(e.catalogView("version", id[len("version:"):]))
			}},
		{op: "version-delete", name: "in use", setup: func(e *testEnv) string {
			e.createCluster(e.createParams("ledger", 1))
			return "version:" + e.info.KubernetesVersions["1.33.13"]
		},
			run:    func(e *testEnv, id string) string { e.mustFail(e.deleteVersion(id[len("version:"):])); return id },
			writes: func(*testEnv, string) map[string]ledgerCheck { return map[string]ledgerCheck{} }},
		{op: "cni-register", name: "unpadded, with parameters", setup: none,
			run: func(e *testEnv, _ string) string {
				status, body := e.adminCall("registerCniConfiguration", url.Values{"name": {"ledger"}, "cniconfig": {"YWI"},
					"params": {"POD_CIDR,MTU"}})
				if status != 200 {
					e.t.Fatalf("register: %d %v", status, body)
				}
				return "cniconfig:" + asStr(e.t, asObj(e.t, inner(e.t, body, "registercniconfigurationresponse")["cniconfig"])["id"])
			},
			writes: func(*testEnv, string) map[string]ledgerCheck {
				return map[string]ledgerCheck{"cniconfig.id": written, "cniconfig.name": is("ledger"), "cniconfig.userdata": is("YWI="),
					"cniconfig.params": is("POD_CIDR,MTU"), "cniconfig.account": is(seedAdminAccount), "cniconfig.accountid": written,
					"cniconfig.domainid": written, "cniconfig.domain": written, "cniconfig.domainpath": written,
					"cniconfig.hasannotations": is("false")}
			}},
		{op: "cni-delete", name: "seeded", setup: func(e *testEnv) string { return "cniconfig:" + e.info.CNIConfigurationID },
			run: func(e *testEnv, id string) string {
				if status, body := e.adminCall("deleteCniConfiguration", url.Values{"id": {id[len("cniconfig:"):]}}); status != 200 {
					e.t.Fatalf("delete: %d %v", status, body)
				}
				return id
			},
			writes: func(e *testEnv, id string) map[string]ledgerCheck {
				return everyFieldCleared(e.catalogView("cniconfig", id[len("cniconfig:"):]))
			}},
	}
}

func (e *testEnv) deleteVersion(id string) string {
	e.t.Helper()
	r, err := e.cs.Kubernetes.DeleteKubernetesSupportedVersion(e.cs.Kubernetes.NewDeleteKubernetesSupportedVersionParams(id))
	if err != nil {
		e.t.Fatal(err)
	}
	return r.JobID
}
