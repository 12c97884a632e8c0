package cloudstack

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"
)

// TestClusterRecordReadsWhatNamesCannotSay decodes the members of a cluster
// that its fields' JSON names alone do not give: masternodes for a server
// that sends no controlnodes, whether csienabled was sent at all, the
// offering names by id, and a number or flag sent as a string or null.
func TestClusterRecordReadsWhatNamesCannotSay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body  string
		control     int64
		csi, report bool
		offerings   map[string]string
		autoscaling bool
		minSize     int64
	}{
		{name: "masternodes only", body: `{"masternodes":"3"}`, control: 3},
		{name: "controlnodes wins", body: `{"masternodes":1,"controlnodes":3}`, control: 3},
		{name: "no csienabled", body: `{"controlnodes":1}`, control: 1},
		{name: "csienabled null", body: `{"csienabled":null}`},
		{name: "csienabled as a string", body: `{"csienabled":"true"}`, csi: true, report: true},
		{name: "csienabled false", body: `{"csienabled":false}`, report: true},
		{name: "offering names", body: `{"serviceofferingid":"so","serviceofferingname":"Small","workerofferingid":"w",` +
			`"workerofferingname":"Large","etcdofferingname":"orphan"}`, offerings: map[string]string{"so": "Small", "w": "Large"}},
		{name: "numbers and flags as strings", body: `{"autoscalingenabled":"TRUE","minsize":"2.0"}`, autoscaling: true, minSize: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var c Cluster
			if err := json.Unmarshal([]byte(tc.body), &c); err != nil {
				t.Fatal(err)
			}
			if c.ControlNodes != tc.control || c.CSIEnabled != tc.csi || c.CSIReported != tc.report ||
				!maps.Equal(c.OfferingNames, tc.offerings) || c.AutoscalingEnabled != tc.autoscaling || c.MinSize != tc.minSize {
				t.Errorf("decoded %+v", c)
			}
		})
	}
}

// TestClusterRecordRefusesWhatItCannotRead names the member a cluster
// cannot be decoded for, rather than leaving its field at zero.
func TestClusterRecordRefusesWhatItCannotRead(t *testing.T) {
	t.Parallel()
	for body, member := range map[string]string{
		`{"size":"three"}`:                               "size",
		`{"autoscalingenabled":"maybe"}`:                 "autoscalingenabled",
		`{"virtualmachines":[{"isetcdnode":"perhaps"}]}`: "isetcdnode",
		`{"name":7}`: "name",
	} {
		var c Cluster
		err := json.Unmarshal([]byte(body), &c)
		if err == nil || !strings.Contains(err.Error(), member) {
			t.Errorf("%s: error %v, want one naming %s", body, err, member)
		}
	}
}

func TestParseCreated(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Time{
		"2026-01-02T03:04:05+0100":  time.Date(2026, 1, 2, 2, 4, 5, 0, time.UTC),
		" 2026-01-02T03:04:05Z ":    time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		"2026-01-02T03:04:05+01:00": time.Date(2026, 1, 2, 2, 4, 5, 0, time.UTC),
		"yesterday":                 {},
		"":                          {},
	} {
		if got := ParseCreated(in); !got.Equal(want) {
			t.Errorf("ParseCreated(%q) = %v, want %v", in, got, want)
		}
	}
}
