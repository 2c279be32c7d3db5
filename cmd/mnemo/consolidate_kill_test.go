package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/sqlite"
)

// consolidateKillTrials is how many times TestConsolidate_KilledMidPass
// kills a consolidation.
const consolidateKillTrials = 5

// TestConsolidate_KilledMidPass kills `mnemo consolidate` (SIGKILL) at a
// random moment of its run, restarts it, and checks that the bank ends
// exactly as after an uninterrupted run: the same facts active, each
// duplicate superseded by the same keeper, the same entity refs and
// counters, the same tiers; decay scores equal but for the seconds
// between the runs. The bank holds a few thousand facts, each said twice,
// so the merge pass has thousands of merges to be killed in.
func TestConsolidate_KilledMidPass(t *testing.T) {
	bin := binary(t)
	ctx := context.Background()
	base := filepath.Join(t.TempDir(), "base.db")
	var a, b strings.Builder
	for i := range 1500 {
		fmt.Fprintf(&a, "On day %d Mira met Theo at the harbour and bought %d apples. ", i, i%13+2)
		fmt.Fprintf(&b, "On day %d Mira met Theo at the harbour and bought %d apples. ", i, i%13+2)
	}
	for i, text := range []string{a.String(), b.String()} {
		cmd := exec.Command(bin, "--db", base, "retain", "--id", fmt.Sprintf("doc-%d", i), "--", text)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("retain: %v\n%s", err, out)
		}
	}

	ref := copyDB(t, base, "ref.db")
	start := time.Now()
	if out, err := exec.Command(bin, "--db", ref, "consolidate").CombinedOutput(); err != nil {
		t.Fatalf("reference consolidate: %v\n%s", err, out)
	}
	full := time.Since(start)
	want := bankState(t, ctx, ref)
	if want.superseded < 1000 {
		t.Fatalf("reference run merged %d facts, want the 1500 duplicates merged", want.superseded)
	}

	rng := rand.New(rand.NewPCG(11, uint64(time.Now().UnixNano())))
	killed := 0
	for trial := range consolidateKillTrials {
		db := copyDB(t, base, fmt.Sprintf("kill-%d.db", trial))
		cmd := exec.Command(bin, "--db", db, "consolidate")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration((0.2 + 0.7*rng.Float64()) * float64(full)))
		if cmd.Process.Kill() == nil {
			killed++
		}
		cmd.Wait()
		if out, err := exec.Command(bin, "--db", db, "consolidate").CombinedOutput(); err != nil {
			t.Fatalf("trial %d: consolidate after the kill: %v\n%s", trial, err, out)
		}
		got := bankState(t, ctx, db)
		if diff := got.diff(want); diff != "" {
			t.Errorf("trial %d: after a kill and a restart the bank differs from an uninterrupted run: %s", trial, diff)
		}
	}
	t.Logf("%d of %d runs killed mid-way (a full run takes %v); every restart matched", killed, consolidateKillTrials, full.Round(time.Millisecond))
}

// copyDB copies the SQLite database at src (closed, checkpointed) to a
// new file named name in a temporary folder.
func copyDB(t *testing.T, src, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	for _, suffix := range []string{"", "-wal", "-shm"} {
		in, err := os.Open(src + suffix)
		if os.IsNotExist(err) && suffix != "" {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(dst + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// consolidated is what a consolidation leaves in a bank, by id.
type consolidated struct {
	facts      map[string]string  // id → status and superseded_by, refs, counters
	decay      map[string]float64 // id → decay score
	entities   map[string]string  // id → tier
	superseded int
}

func bankState(t *testing.T, ctx context.Context, db string) consolidated {
	t.Helper()
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := consolidated{facts: map[string]string{}, decay: map[string]float64{}, entities: map[string]string{}}
	q := memory.FactQuery{Limit: memory.MaxPageSize}
	for {
		page, err := st.ListFacts(ctx, memory.DefaultBank, q)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]string, len(page.Facts))
		for i, f := range page.Facts {
			ids[i] = f.ID
		}
		refs, err := st.EntityRefs(ctx, memory.DefaultBank, ids)
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, r := range refs {
			n[r.FactID]++
		}
		for _, f := range page.Facts {
			c.facts[f.ID] = fmt.Sprintf("%s by %q refs %d accesses %d reinforced %d", f.Status, f.SupersededBy, n[f.ID], f.AccessCount, f.ReinforcementCount)
			c.decay[f.ID] = f.DecayScore
			if f.Status == memory.StatusSuperseded {
				c.superseded++
			}
		}
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	eq := memory.EntityQuery{Limit: memory.MaxPageSize}
	for {
		page, err := st.ListEntities(ctx, memory.DefaultBank, eq)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entities {
			c.entities[e.ID] = fmt.Sprintf("%s episodes %d", e.Tier, e.EpisodeCount)
		}
		if page.Next == "" {
			break
		}
		eq.Cursor = page.Next
	}
	return c
}

// diff describes how c differs from want ("" when it does not): the
// first few facts or entities that differ, and decay scores further
// apart than the minutes between two runs can make them.
func (c consolidated) diff(want consolidated) string {
	var out []string
	note := func(s string) {
		if len(out) < 5 {
			out = append(out, s)
		}
	}
	if len(c.facts) != len(want.facts) || len(c.entities) != len(want.entities) {
		note(fmt.Sprintf("%d facts and %d entities, want %d and %d", len(c.facts), len(c.entities), len(want.facts), len(want.entities)))
	}
	for id, w := range want.facts {
		if g := c.facts[id]; g != w {
			note(fmt.Sprintf("fact %s: %s, want %s", id, g, w))
		}
		if math.Abs(c.decay[id]-want.decay[id]) > 1e-3 {
			note(fmt.Sprintf("fact %s: decay %.4f, want %.4f", id, c.decay[id], want.decay[id]))
		}
	}
	for id, w := range want.entities {
		if g := c.entities[id]; g != w {
			note(fmt.Sprintf("entity %s: %s, want %s", id, g, w))
		}
	}
	return strings.Join(out, "; ")
}
