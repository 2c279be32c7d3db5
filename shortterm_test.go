package mnemo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/provider/openai"
	"github.com/mnemo-ai/mnemo/wire"
)

// shortTermEnv is an engine with a scripted LLM (so that each fact's
// importance is what the test says), an injected clock, and access
// records written when the test says (FlushAccess).
type shortTermEnv struct {
	t     *testing.T
	ctx   context.Context
	srv   *llmtest.Server
	eng   *mnemo.Engine
	clock *testutil.Clock
}

func newShortTermEnv(t *testing.T) *shortTermEnv {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	// No fact here is judged against another: every new fact is new.
	srv.On(llmtest.Rule{Schema: "conflicts", Reply: llmtest.Reply{JSON: decisions()}})
	g := provider.NewGuard()
	g.Backoff, g.MaxBackoff, g.Timeout = time.Millisecond, 5*time.Millisecond, 2*time.Second
	clock := testutil.NewClock(monday)
	eng := open(t, mnemo.Config{
		LLM:   openai.New(openai.Config{BaseURL: srv.URL(), APIKey: "sk-test", Model: "scripted"}),
		Guard: g, Now: clock.Now, AccessFlush: time.Hour, JobPoll: -1, SessionIdle: -1,
	})
	return &shortTermEnv{t: t, ctx: t.Context(), srv: srv, eng: eng.Engine, clock: clock}
}

// retain retains text as one fact of the given importance, short-term or
// not, and returns the fact.
func (e *shortTermEnv) retain(bank, text string, importance float64, shortTerm bool) *memory.Fact {
	e.t.Helper()
	x := extraction(xfact{text: text, category: "event", message: 1})
	x["facts"].([]map[string]any)[0]["importance"] = importance
	e.srv.On(llmtest.Rule{Schema: "extraction", Contains: text, Reply: llmtest.Reply{JSON: x}})
	res, err := e.eng.Retain(e.ctx, memory.RetainRequest{BankID: bank, Text: text, ShortTerm: shortTerm})
	if err != nil {
		e.t.Fatalf("Retain(%q): %v", text, err)
	}
	if len(res.Outcomes) != 1 || res.Outcomes[0].FactID == "" {
		e.t.Fatalf("Retain(%q): outcomes %+v, want one fact stored", text, res.Outcomes)
	}
	return e.fact(bank, res.Outcomes[0].FactID)
}

// fact reads a fact, nil when it is gone.
func (e *shortTermEnv) fact(bank, id string) *memory.Fact {
	e.t.Helper()
	fs, err := mnemo.StoreOf(e.eng).Facts(e.ctx, bank, []string{id})
	if err != nil {
		e.t.Fatal(err)
	}
	if len(fs) == 0 {
		return nil
	}
	return fs[0]
}

// recall returns the tier of each result by fact id.
func (e *shortTermEnv) recall(bank, query string) map[string]memory.FactTier {
	e.t.Helper()
	rec, err := e.eng.Recall(e.ctx, memory.Query{BankID: bank, Text: query})
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]memory.FactTier{}
	for _, r := range rec.Results {
		out[r.Fact.ID] = r.Tier
	}
	return out
}

// listed returns the ids `mnemo facts` lists for bank.
func (e *shortTermEnv) listed(bank string) []string {
	e.t.Helper()
	page, err := e.eng.Facts(e.ctx, bank, memory.FactQuery{Limit: memory.MaxPageSize})
	if err != nil {
		e.t.Fatal(err)
	}
	var ids []string
	for _, f := range page.Facts {
		ids = append(ids, f.ID)
	}
	return ids
}

// TestEngine_ShortTerm is seed 002's short-term memory end to end: facts
// retained short-term live 48 h (or the bank's TTL), recall finds them
// beside long-term ones and tags each with its tier; past the TTL the
// ones never recalled and unimportant leave recall at once, and the
// expire pass promotes the recalled one and the important one to
// long-term and prunes the rest, leaving long-term facts alone.
func TestEngine_ShortTerm(t *testing.T) {
	e := newShortTermEnv(t)
	ctx := e.ctx
	if _, err := e.eng.CreateBank(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.eng.CreateBank(ctx, "quick"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.eng.ChangeBank(ctx, "quick", func(s *memory.BankSettings) { s.ShortTermTTL = 12 * time.Hour }); err != nil {
		t.Fatal(err)
	}
	t0 := e.clock.Now()
	home := e.retain("b", "Alice lives in Lisbon with her dog Rex.", 0.5, false)
	dentist := e.retain("b", "Alice is at the dentist until three.", 0.3, true)
	review := e.retain("b", "The quarterly review moved to Friday at nine.", 0.8, true)
	parking := e.retain("b", "The parking garage on Elm Street is full.", 0.2, true)
	coffee := e.retain("b", "The coffee machine on floor two is broken.", 0.4, true)
	train := e.retain("quick", "Bob's train from Porto is late.", 0.2, true)

	for _, f := range []*memory.Fact{dentist, review, parking, coffee} {
		if !f.ExpiresAt.Equal(t0.Add(48 * time.Hour)) {
			t.Errorf("%q: ExpiresAt %v, want now + 48 h (%v)", f.Text, f.ExpiresAt, t0.Add(48*time.Hour))
		}
	}
	if home.ShortTerm() {
		t.Errorf("%q: ExpiresAt %v, want none (long-term)", home.Text, home.ExpiresAt)
	}
	if !train.ExpiresAt.Equal(t0.Add(12 * time.Hour)) {
		t.Errorf("%q in a bank with a 12 h TTL: ExpiresAt %v, want %v", train.Text, train.ExpiresAt, t0.Add(12*time.Hour))
	}

	// Recall searches both tiers and tags each result.
	e.clock.Advance(time.Hour)
	got := e.recall("b", "Where is Alice?")
	if got[home.ID] != memory.TierLongTerm || got[dentist.ID] != memory.TierShortTerm {
		t.Errorf("recall(Where is Alice?): tiers %v, want %s long_term and %s short_term", got, home.ID, dentist.ID)
	}
	if _, ok := got[parking.ID]; ok {
		t.Fatalf("recall(Where is Alice?) returned the parking fact: the test needs it never recalled")
	}
	if err := mnemo.FlushAccess(e.eng); err != nil {
		t.Fatal(err)
	}
	rec, err := e.eng.Recall(ctx, memory.Query{BankID: "b", Text: "Where is Alice?"})
	if err != nil {
		t.Fatal(err)
	}
	w := wire.NewRecall(rec)
	for _, r := range w.Results {
		if want := map[bool]memory.FactTier{true: memory.TierShortTerm, false: memory.TierLongTerm}[r.ID == dentist.ID]; r.Tier != want {
			t.Errorf("wire result %s: tier %q, want %q", r.ID, r.Tier, want)
		}
	}
	if !strings.Contains(rec.Context, "Alice is at the dentist until three. (short-term)") {
		t.Errorf("context: want the short-term fact marked:\n%s", rec.Context)
	}

	// 49 hours on: past every TTL. The facts the pass will prune leave
	// recall now; the recalled and the important ones stay in view.
	e.clock.Set(t0.Add(49 * time.Hour))
	if got := e.recall("b", "parking garage Elm Street full"); len(got) != 0 {
		t.Errorf("recall(parking) past the TTL: got %v, want nothing (the fact lapsed)", got)
	}
	if got := e.recall("b", "quarterly review Friday"); got[review.ID] != memory.TierShortTerm {
		t.Errorf("recall(review) past the TTL: got %v, want the important fact, still short-term", got)
	}
	if got := e.recall("b", "Alice dentist"); got[dentist.ID] != memory.TierShortTerm {
		t.Errorf("recall(dentist) past the TTL: got %v, want the recalled fact, still short-term", got)
	}
	if ids := e.listed("b"); len(ids) != 5 {
		t.Errorf("facts listed before the pass: %d, want 5 (curation shows what is stored)", len(ids))
	}

	run, err := e.eng.Consolidate(ctx, "b", mnemo.PassExpire)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != memory.RunOK || run.Counts["expired"] != 4 || run.Counts["promoted"] != 2 || run.Counts["pruned"] != 2 {
		t.Errorf("expire run: %s %v, want ok with 4 expired, 2 promoted, 2 pruned", run.Status, run.Counts)
	}
	for _, f := range []*memory.Fact{dentist, review} {
		if x := e.fact("b", f.ID); x == nil || x.ShortTerm() || x.Status != memory.StatusActive {
			t.Errorf("%q after the pass: %+v, want active and long-term", f.Text, x)
		}
	}
	for _, f := range []*memory.Fact{parking, coffee} {
		if x := e.fact("b", f.ID); x != nil {
			t.Errorf("%q after the pass: still stored, want pruned", f.Text)
		}
	}
	if x := e.fact("b", home.ID); x == nil || x.ShortTerm() || x.Status != memory.StatusActive || x.Text != home.Text {
		t.Errorf("the long-term fact after the pass: %+v, want it untouched", x)
	}
	if ids := e.listed("b"); !sameIDs(ids, []string{home.ID, dentist.ID, review.ID}) {
		t.Errorf("facts listed after the pass: %v, want the long-term fact and the two promoted", ids)
	}
	if got := e.recall("b", "coffee machine floor broken"); len(got) != 0 {
		t.Errorf("recall(coffee) after the pass: %v, want nothing", got)
	}
	if got := e.recall("b", "Alice dentist"); got[dentist.ID] != memory.TierLongTerm {
		t.Errorf("recall(dentist) after the pass: %v, want it long-term now", got)
	}
	log, err := e.eng.ForgetLog(ctx, "b", 0)
	if err != nil || len(log) == 0 || log[0].Actor != "consolidate:expire" {
		t.Errorf("forget log: %+v, %v, want the pass's record", log, err)
	}
	again, err := e.eng.Consolidate(ctx, "b", mnemo.PassExpire)
	if err != nil || again.Counts["expired"] != 0 {
		t.Errorf("expire again: %v, %v, want nothing expired", again.Counts, err)
	}

	// The other bank's fact, 12 h TTL, never recalled: pruned there.
	run, err = e.eng.Consolidate(ctx, "quick", mnemo.PassExpire)
	if err != nil || run.Counts["pruned"] != 1 || e.fact("quick", train.ID) != nil {
		t.Errorf("expire quick: %v, %v, want the train fact pruned", run.Counts, err)
	}
}

func sameIDs(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// PassExpire runs in a full consolidation, right before the lifecycle
// pass, and needs no LLM.
func TestEngine_ShortTerm_PassOrder(t *testing.T) {
	i := slices.Index(mnemo.Passes, mnemo.PassExpire)
	if i < 0 || i+1 >= len(mnemo.Passes) || mnemo.Passes[i+1] != mnemo.PassLifecycle {
		t.Errorf("Passes %v: want expire right before lifecycle", mnemo.Passes)
	}
	eng := open(t, mnemo.Config{AccessFlush: -1, JobPoll: -1})
	if _, err := eng.Retain(t.Context(), memory.RetainRequest{Text: "Nothing expires here.", ShortTerm: true}); err != nil {
		t.Fatal(err)
	}
	r, err := eng.Consolidate(t.Context(), "", mnemo.PassExpire)
	if err != nil || r.Status != memory.RunOK || r.Counts["expired"] != 0 {
		t.Errorf("expire before any TTL ran out, no LLM: %+v, %v, want ok and nothing expired", r, err)
	}
}

// An async retain keeps the flag through the job queue, and the TTL runs
// from when the job runs.
func TestEngine_ShortTerm_Async(t *testing.T) {
	ctx := t.Context()
	clock := testutil.NewClock(monday)
	eng := open(t, mnemo.Config{Now: clock.Now, AccessFlush: -1, JobPoll: -1})
	j, err := eng.RetainAsync(ctx, memory.RetainRequest{Text: "The plumber comes at noon.", ShortTerm: true})
	if err != nil {
		t.Fatal(err)
	}
	var payload memory.RetainRequest
	if err := json.Unmarshal(j.Payload, &payload); err != nil || !payload.ShortTerm {
		t.Fatalf("job payload %s: %v, want ShortTerm kept", j.Payload, err)
	}
	clock.Advance(time.Hour)
	if n, err := eng.RunJobs(ctx); err != nil || n != 1 {
		t.Fatalf("RunJobs: %d, %v", n, err)
	}
	page, err := eng.Facts(ctx, "", memory.FactQuery{})
	if err != nil || len(page.Facts) != 1 {
		t.Fatalf("facts: %v, %v", page, err)
	}
	if f := page.Facts[0]; !f.ExpiresAt.Equal(clock.Now().Add(48 * time.Hour)) {
		t.Errorf("ExpiresAt %v, want the job's run + 48 h (%v)", f.ExpiresAt, clock.Now().Add(48*time.Hour))
	}
}

// Export and import keep a short-term fact's ExpiresAt: the imported
// bank's short-term memories expire when the exported ones would have.
func TestEngine_ShortTerm_ExportImport(t *testing.T) {
	ctx := t.Context()
	src := openEngine(t, filepath.Join(t.TempDir(), "src.db"))
	if _, err := src.Retain(ctx, memory.RetainRequest{Text: "The plumber comes at noon.", ShortTerm: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Retain(ctx, memory.RetainRequest{Text: "Ana was born in Porto."}); err != nil {
		t.Fatal(err)
	}
	a := export(t, src, memory.DefaultBank)
	if !bytes.Contains(a, []byte(`"expires_at":"`)) {
		t.Fatalf("the export holds no expires_at:\n%s", a)
	}
	dst := openEngine(t, filepath.Join(t.TempDir(), "dst.db"))
	if _, err := dst.ImportBank(ctx, bytes.NewReader(a), mnemo.ImportBankOptions{}); err != nil {
		t.Fatal(err)
	}
	want, err := src.Facts(ctx, memory.DefaultBank, memory.FactQuery{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := dst.Facts(ctx, memory.DefaultBank, memory.FactQuery{})
	if err != nil || len(got.Facts) != len(want.Facts) {
		t.Fatalf("imported facts: %v, %v", got, err)
	}
	short := 0
	for i, f := range got.Facts {
		if !f.ExpiresAt.Equal(want.Facts[i].ExpiresAt) {
			t.Errorf("%q: ExpiresAt %v after import, want %v", f.Text, f.ExpiresAt, want.Facts[i].ExpiresAt)
		}
		if f.ShortTerm() {
			short++
		}
	}
	if short != 1 {
		t.Errorf("%d short-term facts after import, want 1", short)
	}
	if b := export(t, dst, memory.DefaultBank); !bytes.Equal(a, b) {
		t.Errorf("the re-export differs from the export")
	}
}
