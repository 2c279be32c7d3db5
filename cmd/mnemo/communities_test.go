package main

import (
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/wire"
)

// TestCommunities lists no communities before the pass ran, then the
// two groups of friends the communities pass finds, as a table and as
// JSON; an unknown bank fails with not found.
func TestCommunities(t *testing.T) {
	db := newDB(t)
	for _, text := range []string{
		"Alice, Bruno and Chiara went climbing at Arco.",
		"Bruno and Chiara cooked dinner for Alice.",
		"Alice told Chiara and Bruno about Arco.",
		"Dmitri, Elena and Farid play chess at Kaissa.",
		"Elena beat Dmitri and Farid at Kaissa.",
		"Farid and Dmitri watched Elena at Kaissa.",
	} {
		mustRun(t, db, "retain", text)
	}
	if out := mustRun(t, db, "communities"); !strings.Contains(out, "no communities in bank default") {
		t.Errorf("communities before the pass: %q", out)
	}
	var run wire.Run
	decodeStrict(t, mustRun(t, db, "--json", "consolidate", "--pass", "communities"), &run)
	if run.Status != "ok" || run.Counts["created"] != 2 {
		t.Fatalf("consolidate --pass communities: %+v, want 2 created", run)
	}
	var list wire.CommunityList
	decodeStrict(t, mustRun(t, db, "--json", "communities"), &list)
	if len(list.Communities) != 2 || list.Communities[0].Size < 3 || len(list.Communities[0].Members) != list.Communities[0].Size {
		t.Fatalf("communities --json: %+v, want the two groups", list)
	}
	out := mustRun(t, db, "communities")
	for _, c := range list.Communities {
		if !strings.Contains(out, c.ID) || !strings.Contains(out, c.Name) {
			t.Errorf("communities table lacks %s (%s):\n%s", c.ID, c.Name, out)
		}
	}
	wantFailure(t, mnemoRun(t, db, "--bank", "ghost", "communities"), exitNotFound, "ghost")
}
