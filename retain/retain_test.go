package retain_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/hashembed"
	"github.com/mnemo-ai/mnemo/retain"
	"github.com/mnemo-ai/mnemo/store/sqlite"
)

// monday is Monday 2023-05-08, 13:56 UTC: "last Saturday" said then is
// 2023-05-06.
var monday = time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)

// env is a retain pipeline over a real SQLite store with one bank, "b",
// the hash embedder, the heuristic extractor and a fixed clock.
type env struct {
	t     *testing.T
	ctx   context.Context
	store *sqlite.Store
	clock *testutil.Clock
	emb   *hashembed.Embedder
	p     *retain.Pipeline
}

func newEnv(t *testing.T) *env {
	t.Helper()
	st := testutil.OpenStore(t)
	testutil.CreateBank(t, st, "b")
	clock := testutil.NewClock(monday.Add(time.Hour))
	st.Now = clock.Now
	emb := hashembed.New(hashembed.DefaultDimension)
	ex := extract.NewHeuristic()
	ex.Now = clock.Now
	p := retain.New(st, emb, ex)
	p.Now = clock.Now
	return &env{t: t, ctx: context.Background(), store: st, clock: clock, emb: emb, p: p}
}

// retain retains req and fails the test on error.
func (e *env) retain(req memory.RetainRequest) *memory.RetainResult {
	e.t.Helper()
	res, err := e.p.Retain(e.ctx, req)
	if err != nil {
		e.t.Fatalf("Retain: %v", err)
	}
	return res
}

// facts returns every fact of a bank, of any status, in ingestion order.
func facts(t *testing.T, st memory.Store, bank string) []*memory.Fact {
	t.Helper()
	ctx := context.Background()
	ex, ok := st.(memory.Exporter)
	if !ok {
		t.Fatalf("%T cannot export: facts reads a bank whole through memory.Exporter", st)
	}
	var ids []string
	err := ex.Export(ctx, bank, func(r *memory.ExportRecord) error {
		if r.Kind == memory.RecordFact {
			ids = append(ids, r.Fact.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Export: %v", err)
	}
	fs, err := st.Facts(ctx, bank, ids)
	if err != nil {
		t.Fatalf("Facts: %v", err)
	}
	if len(fs) != len(ids) {
		t.Fatalf("Facts returned %d of %d ids", len(fs), len(ids))
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].Seq < fs[j].Seq })
	return fs
}

func factIDs(fs []*memory.Fact) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.ID
	}
	return out
}

func texts(fs []*memory.Fact) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Text
	}
	return out
}

// conversation is a short chat between Caroline and Melanie, said on
// monday.
var conversation = []memory.Message{
	{ID: "D1:1", Speaker: "Caroline", Text: "I went to the LGBTQ support group last Saturday."},
	{ID: "D1:2", Speaker: "Melanie", Text: "That's great! I painted a sunrise over Lake Tahoe."},
	{ID: "D1:3", Speaker: "Caroline", Text: "Melanie, your painting of Lake Tahoe is lovely."},
}

func TestValidate(t *testing.T) {
	bad := string([]byte{0xff, 0xfe, 'x'})
	ok := memory.RetainRequest{BankID: "b", Text: "Alice moved to Lisbon."}
	msgs := func(ms ...memory.Message) memory.RetainRequest {
		return memory.RetainRequest{BankID: "b", Messages: ms}
	}
	with := func(f func(r *memory.RetainRequest)) memory.RetainRequest {
		r := ok
		f(&r)
		return r
	}
	half := memory.MaxContentBytes / 2
	tests := []struct {
		name    string
		req     memory.RetainRequest
		wantErr bool
		wantMsg string // a substring of the error message, when set
	}{
		{name: "OK/Text", req: ok},
		{name: "OK/Messages", req: msgs(memory.Message{Speaker: "Caroline", Text: "Hi"}, memory.Message{Text: " "})},
		{name: "OK/AtLimit", req: with(func(r *memory.RetainRequest) { r.Text = strings.Repeat("a", memory.MaxContentBytes) })},
		{name: "OK/LongestBankName", req: with(func(r *memory.RetainRequest) { r.BankID = strings.Repeat("b", 128) })},
		{name: "OK/BankPunctuation", req: with(func(r *memory.RetainRequest) { r.BankID = "user:42.agent_x-1" })},

		{name: "Empty", req: memory.RetainRequest{BankID: "b"}, wantErr: true, wantMsg: "nothing to remember"},
		{name: "WhitespaceText", req: with(func(r *memory.RetainRequest) { r.Text = " \n\t\r\n " }), wantErr: true, wantMsg: "nothing to remember"},
		{name: "WhitespaceMessages", req: msgs(memory.Message{Speaker: "A", Text: "  "}, memory.Message{Speaker: "B", Text: "\n"}), wantErr: true, wantMsg: "nothing to remember"},
		{name: "SpeakerOnly", req: memory.RetainRequest{BankID: "b", Speaker: "Caroline"}, wantErr: true},
		{name: "TextAndMessages", req: with(func(r *memory.RetainRequest) { r.Messages = []memory.Message{{Text: "hi"}} }), wantErr: true, wantMsg: "not both"},

		{name: "InvalidUTF8/Text", req: with(func(r *memory.RetainRequest) { r.Text = "ok " + bad }), wantErr: true, wantMsg: "text"},
		{name: "InvalidUTF8/Speaker", req: with(func(r *memory.RetainRequest) { r.Speaker = bad }), wantErr: true, wantMsg: "speaker"},
		{name: "InvalidUTF8/Source", req: with(func(r *memory.RetainRequest) { r.Source = bad }), wantErr: true, wantMsg: "source"},
		{name: "InvalidUTF8/ItemID", req: with(func(r *memory.RetainRequest) { r.ItemID = bad }), wantErr: true, wantMsg: "item"},
		{name: "InvalidUTF8/MessageText", req: msgs(memory.Message{Text: "fine"}, memory.Message{Text: bad}), wantErr: true, wantMsg: "message 2"},
		{name: "InvalidUTF8/MessageSpeaker", req: msgs(memory.Message{Speaker: bad, Text: "fine"}), wantErr: true, wantMsg: "speaker"},
		{name: "InvalidUTF8/MessageID", req: msgs(memory.Message{ID: bad, Text: "fine"}), wantErr: true, wantMsg: "id"},
		{name: "InvalidUTF8/Tag", req: with(func(r *memory.RetainRequest) { r.Tags = []string{"fine", bad} }), wantErr: true, wantMsg: "tag"},

		{name: "Oversize/Text", req: with(func(r *memory.RetainRequest) { r.Text = strings.Repeat("a", memory.MaxContentBytes+1) }), wantErr: true, wantMsg: "limit"},
		{name: "Oversize/TextAndSpeaker", req: with(func(r *memory.RetainRequest) {
			r.Text, r.Speaker = strings.Repeat("a", memory.MaxContentBytes-1), "Al"
		}), wantErr: true, wantMsg: "limit"},
		{name: "Oversize/Messages", req: msgs(memory.Message{Text: strings.Repeat("a", half)}, memory.Message{Text: strings.Repeat("b", half+1)}), wantErr: true, wantMsg: "limit"},

		{name: "BankName/Empty", req: with(func(r *memory.RetainRequest) { r.BankID = "" }), wantErr: true},
		{name: "BankName/Space", req: with(func(r *memory.RetainRequest) { r.BankID = "my bank" }), wantErr: true},
		{name: "BankName/LeadingDash", req: with(func(r *memory.RetainRequest) { r.BankID = "-bank" }), wantErr: true},
		{name: "BankName/Slash", req: with(func(r *memory.RetainRequest) { r.BankID = "a/b" }), wantErr: true},
		{name: "BankName/TooLong", req: with(func(r *memory.RetainRequest) { r.BankID = strings.Repeat("b", 129) }), wantErr: true},
		{name: "BankName/InvalidUTF8", req: with(func(r *memory.RetainRequest) { r.BankID = bad }), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req
			err := retain.Validate(&req)
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("Validate: %v, want nil", err)
				}
				return
			}
			if got := memory.ErrorCode(err); got != memory.EINVALID {
				t.Fatalf("Validate: code %q (%v), want %q", got, err, memory.EINVALID)
			}
			if tt.wantMsg != "" && !strings.Contains(memory.ErrorMessage(err), tt.wantMsg) {
				t.Errorf("Validate: message %q does not mention %q", memory.ErrorMessage(err), tt.wantMsg)
			}
		})
	}
}

// Retain refuses what Validate refuses, before touching the store.
func TestPipeline_Retain_ErrInvalid(t *testing.T) {
	e := newEnv(t)
	for _, req := range []memory.RetainRequest{
		{BankID: "b"},
		{BankID: "b", Text: "   "},
		{BankID: "b", Text: "x", Messages: []memory.Message{{Text: "y"}}},
		{BankID: "b b", Text: "Hello there."},
	} {
		if _, err := e.p.Retain(e.ctx, req); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("Retain(%+v): err = %v, want EINVALID", req, err)
		}
	}
	if got := testutil.Stats(t, e.store, "b"); got != (memory.Stats{}) {
		t.Errorf("Stats after refused retains = %+v, want zero", got)
	}
	b, err := e.store.Bank(e.ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if b.Embedder != "" {
		t.Errorf("refused retains recorded embedder %q on the bank", b.Embedder)
	}
}

func TestPipeline_Retain_Messages(t *testing.T) {
	e := newEnv(t)
	req := memory.RetainRequest{BankID: "b", Source: memory.SourceChat, ItemID: "session-1", At: monday, Messages: conversation, Tags: []string{"locomo"}}
	res := e.retain(req)
	if res.Duplicate || res.Replaced {
		t.Errorf("first Retain: %+v, want neither duplicate nor replaced", res)
	}
	if res.Facts != len(conversation) {
		t.Errorf("Facts = %d, want %d", res.Facts, len(conversation))
	}

	doc, err := e.store.DocumentByItem(e.ctx, "b", memory.SourceChat, "session-1")
	if err != nil {
		t.Fatalf("DocumentByItem: %v", err)
	}
	if doc.ID != res.DocumentID {
		t.Errorf("stored document %s, result says %s", doc.ID, res.DocumentID)
	}
	if !doc.OccurredAt.Equal(monday) {
		t.Errorf("document OccurredAt = %v, want %v", doc.OccurredAt, monday)
	}
	if !slices.Equal(doc.Tags, req.Tags) {
		t.Errorf("document Tags = %q, want %q", doc.Tags, req.Tags)
	}

	chunks, err := e.store.Chunks(e.ctx, "b", doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != len(conversation) {
		t.Fatalf("%d chunks, want %d", len(chunks), len(conversation))
	}
	for i, c := range chunks {
		if want := memory.ChunkID("b", doc.ID, i); c.ID != want {
			t.Errorf("chunk %d ID = %q, want %q", i, c.ID, want)
		}
		if c.Text != conversation[i].Text {
			t.Errorf("chunk %d Text = %q, want %q", i, c.Text, conversation[i].Text)
		}
	}

	fs := facts(t, e.store, "b")
	if len(fs) != len(conversation) {
		t.Fatalf("%d facts stored, want %d", len(fs), len(conversation))
	}
	created := e.clock.Now()
	for i, f := range fs {
		m := conversation[i]
		if f.Text != m.Text || f.Speaker != m.Speaker || f.SourceRef != m.ID {
			t.Errorf("fact %d = (%q, %q, %q), want (%q, %q, %q)", i, f.Text, f.Speaker, f.SourceRef, m.Text, m.Speaker, m.ID)
		}
		if f.DocumentID != doc.ID {
			t.Errorf("fact %d DocumentID = %q, want %q", i, f.DocumentID, doc.ID)
		}
		if f.ChunkID != chunks[i].ID {
			t.Errorf("fact %d ChunkID = %q, want %q", i, f.ChunkID, chunks[i].ID)
		}
		if !f.MentionedAt.Equal(monday) {
			t.Errorf("fact %d MentionedAt = %v, want %v", i, f.MentionedAt, monday)
		}
		if !f.CreatedAt.Equal(created) {
			t.Errorf("fact %d CreatedAt = %v, want the clock's %v", i, f.CreatedAt, created)
		}
		if f.Status != memory.StatusActive {
			t.Errorf("fact %d Status = %q, want active", i, f.Status)
		}
		if !slices.Equal(f.Tags, req.Tags) {
			t.Errorf("fact %d Tags = %q, want %q", i, f.Tags, req.Tags)
		}
		if f.Seq <= 0 || (i > 0 && f.Seq <= fs[i-1].Seq) {
			t.Errorf("fact %d Seq = %d, not increasing", i, f.Seq)
		}
	}
	// "last Saturday" said on Monday 2023-05-08 is Saturday 2023-05-06.
	sat := time.Date(2023, 5, 6, 0, 0, 0, 0, time.UTC)
	if got := fs[0].OccurredStart; !got.Equal(sat) {
		t.Errorf("OccurredStart of %q = %v, want %v", fs[0].Text, got, sat)
	}
	if got := fs[0].OccurredEnd; !got.Equal(sat.AddDate(0, 0, 1)) {
		t.Errorf("OccurredEnd of %q = %v, want %v", fs[0].Text, got, sat.AddDate(0, 0, 1))
	}
	if got := fs[0].ValidFrom; !got.Equal(sat) {
		t.Errorf("ValidFrom of %q = %v, want %v", fs[0].Text, got, sat)
	}
	// Undated messages happened when they were said.
	for _, f := range fs[1:] {
		if !f.OccurredStart.Equal(monday) {
			t.Errorf("OccurredStart of %q = %v, want %v", f.Text, f.OccurredStart, monday)
		}
	}
	// Each fact's embedding is that of its speaker and text: searching by
	// it finds the fact itself first.
	for _, f := range fs {
		hits, err := e.store.SearchVector(e.ctx, "b", e.emb.EmbedOne(retain.EmbedText(f)), 1, memory.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 || hits[0].ID != f.ID || math.Abs(hits[0].Score-1) > 1e-4 {
			t.Errorf("SearchVector by the embedding of %q = %+v, want %s with score 1", f.Text, hits, f.ID)
		}
	}
}

// The refs and entities are what the extractor found, mapped to
// deterministic entity ids, with their mentions counted.
func TestPipeline_Retain_Entities(t *testing.T) {
	e := newEnv(t)
	req := memory.RetainRequest{BankID: "b", Source: memory.SourceChat, ItemID: "session-1", At: monday, Messages: conversation}
	res := e.retain(req)
	fs := facts(t, e.store, "b")

	// The extractor is the oracle of which entities each fact mentions.
	ex, err := extract.NewHeuristic().Extract(e.ctx, extract.Input{Messages: conversation, At: monday})
	if err != nil {
		t.Fatal(err)
	}
	wantRefs := map[string][]string{}
	mentions := map[string]int{}
	names := map[string]string{}
	for i, xf := range ex.Facts {
		for _, xe := range xf.Entities {
			id := memory.EntityID(xe.Name)
			wantRefs[fs[i].ID] = append(wantRefs[fs[i].ID], id)
			mentions[id]++
			names[id] = xe.Name
		}
	}
	refs, err := e.store.EntityRefs(e.ctx, "b", factIDs(fs))
	if err != nil {
		t.Fatal(err)
	}
	gotRefs := map[string][]string{}
	for _, r := range refs {
		gotRefs[r.FactID] = append(gotRefs[r.FactID], r.EntityID)
	}
	for _, f := range fs {
		got, want := gotRefs[f.ID], slices.Clone(wantRefs[f.ID])
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("refs of %q = %q, want %q", f.Text, got, want)
		}
	}

	// Spot checks independent of the extractor's output: the speakers are
	// people, and Caroline is referenced by the two facts she said.
	caroline := memory.EntityID("Caroline")
	if mentions[caroline] != 2 {
		t.Fatalf("extractor found Caroline %d times, want 2: the test's conversation no longer fits", mentions[caroline])
	}
	for _, i := range []int{0, 2} {
		if !slices.Contains(gotRefs[fs[i].ID], caroline) {
			t.Errorf("fact %q has no ref to Caroline", fs[i].Text)
		}
	}

	ids := make([]string, 0, len(mentions))
	for id := range mentions {
		ids = append(ids, id)
	}
	ents, err := e.store.Entities(e.ctx, "b", ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != len(ids) {
		t.Fatalf("%d entities stored, want %d", len(ents), len(ids))
	}
	if res.Entities != len(ids) {
		t.Errorf("result Entities = %d, want %d", res.Entities, len(ids))
	}
	if got := testutil.Stats(t, e.store, "b").Entities; got != len(ids) {
		t.Errorf("Stats.Entities = %d, want %d", got, len(ids))
	}
	for _, en := range ents {
		if en.Name != names[en.ID] {
			t.Errorf("entity %s Name = %q, want %q", en.ID, en.Name, names[en.ID])
		}
		if en.MentionCount != mentions[en.ID] {
			t.Errorf("entity %q MentionCount = %d, want %d", en.Name, en.MentionCount, mentions[en.ID])
		}
		if en.EpisodeCount != 1 {
			t.Errorf("entity %q EpisodeCount = %d, want 1", en.Name, en.EpisodeCount)
		}
	}
	byID := map[string]*memory.Entity{}
	for _, en := range ents {
		byID[en.ID] = en
	}
	sat := time.Date(2023, 5, 6, 0, 0, 0, 0, time.UTC)
	if c := byID[caroline]; !c.FirstSeen.Equal(sat) || !c.LastSeen.Equal(monday) {
		t.Errorf("Caroline seen %v – %v, want %v – %v", c.FirstSeen, c.LastSeen, sat, monday)
	}

	// A second conversation adds to the counts: one more episode, and one
	// more mention per fact that names Caroline.
	e.clock.Advance(24 * time.Hour)
	e.retain(memory.RetainRequest{BankID: "b", Source: memory.SourceChat, ItemID: "session-2", At: monday.AddDate(0, 0, 1), Messages: []memory.Message{
		{ID: "D2:1", Speaker: "Caroline", Text: "I am researching adoption agencies."},
	}})
	ents, err = e.store.Entities(e.ctx, "b", []string{caroline})
	if err != nil || len(ents) != 1 {
		t.Fatalf("Entities(Caroline) = %v, %v", ents, err)
	}
	if got, want := ents[0].MentionCount, mentions[caroline]+1; got != want {
		t.Errorf("Caroline MentionCount after a second session = %d, want %d", got, want)
	}
	if got := ents[0].EpisodeCount; got != 2 {
		t.Errorf("Caroline EpisodeCount after a second session = %d, want 2", got)
	}
	if got, want := ents[0].LastSeen, monday.AddDate(0, 0, 1); !got.Equal(want) {
		t.Errorf("Caroline LastSeen = %v, want %v", got, want)
	}
	if got := ents[0].FirstSeen; !got.Equal(sat) {
		t.Errorf("Caroline FirstSeen = %v, want %v (unchanged)", got, sat)
	}
}

func TestPipeline_Retain_Links(t *testing.T) {
	e := newEnv(t)
	res := e.retain(memory.RetainRequest{BankID: "b", Source: memory.SourceChat, ItemID: "session-1", At: monday, Messages: conversation})
	fs := facts(t, e.store, "b")
	f0, f1, f2 := fs[0].ID, fs[1].ID, fs[2].ID

	temporal := func(id string) []string {
		t.Helper()
		ls, err := e.store.Links(e.ctx, "b", []string{id}, memory.LinkTemporal)
		if err != nil {
			t.Fatal(err)
		}
		var to []string
		for _, l := range ls {
			if l.FromID != id || l.Kind != memory.LinkTemporal {
				t.Errorf("Links(%s, temporal) returned %+v", id, l)
			}
			to = append(to, l.ToID)
		}
		slices.Sort(to)
		return to
	}
	sorted := func(ids ...string) []string { slices.Sort(ids); return ids }
	for _, tt := range []struct {
		from string
		want []string
	}{
		{f0, []string{f1}},
		{f1, sorted(f0, f2)},
		{f2, []string{f1}},
	} {
		if got := temporal(tt.from); !slices.Equal(got, tt.want) {
			t.Errorf("temporal links from %s = %q, want %q", tt.from, got, tt.want)
		}
	}

	// Lake Tahoe is mentioned by the second and third facts: they are tied
	// both ways. Caroline only speaks (first and third): no entity link.
	tahoe := memory.EntityID("Lake Tahoe")
	caroline := memory.EntityID("Caroline")
	ls, err := e.store.Links(e.ctx, "b", factIDs(fs), memory.LinkEntity)
	if err != nil {
		t.Fatal(err)
	}
	type edge struct{ from, to, entity string }
	var got []edge
	for _, l := range ls {
		got = append(got, edge{l.FromID, l.ToID, l.EntityID})
		if l.EntityID == caroline {
			t.Errorf("entity link through the speaker Caroline: %+v", l)
		}
	}
	if !slices.Contains(got, edge{f1, f2, tahoe}) || !slices.Contains(got, edge{f2, f1, tahoe}) {
		t.Errorf("entity links = %+v, want %s <-> %s through Lake Tahoe", got, f1, f2)
	}
	all, err := e.store.Links(e.ctx, "b", factIDs(fs))
	if err != nil {
		t.Fatal(err)
	}
	if res.Links != len(all) {
		t.Errorf("result Links = %d, store holds %d", res.Links, len(all))
	}
	if got := testutil.Stats(t, e.store, "b").Links; got != len(all) {
		t.Errorf("Stats.Links = %d, want %d", got, len(all))
	}

	// Links stay inside a document: a second session's first fact is not
	// tied to the first session's last one.
	e.retain(memory.RetainRequest{BankID: "b", Source: memory.SourceChat, ItemID: "session-2", At: monday.AddDate(0, 0, 1), Messages: []memory.Message{
		{ID: "D2:1", Speaker: "Melanie", Text: "Lake Tahoe was freezing this morning."},
		{ID: "D2:2", Speaker: "Caroline", Text: "Stay warm!"},
	}})
	fs2 := facts(t, e.store, "b")[3:]
	ls, err = e.store.Links(e.ctx, "b", factIDs(fs2))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		if slices.Contains([]string{f0, f1, f2}, l.ToID) {
			t.Errorf("link across documents: %+v", l)
		}
	}
	if got := temporal(fs2[0].ID); !slices.Equal(got, []string{fs2[1].ID}) {
		t.Errorf("temporal links from the second session's first fact = %q, want %q", got, fs2[1].ID)
	}
}

func TestPipeline_Retain_Text(t *testing.T) {
	e := newEnv(t)
	text := "Alice moved to Lisbon in May. She loves the sea.\n\nBob visited her last week."
	res := e.retain(memory.RetainRequest{BankID: "b", Text: text, Speaker: "Carol", At: monday})
	fs := facts(t, e.store, "b")
	want := []string{"Alice moved to Lisbon in May.", "She loves the sea.", "Bob visited her last week."}
	if got := texts(fs); !slices.Equal(got, want) {
		t.Fatalf("facts = %q, want %q", got, want)
	}
	if res.Facts != len(want) {
		t.Errorf("result Facts = %d, want %d", res.Facts, len(want))
	}
	chunks, err := e.store.Chunks(e.ctx, "b", res.DocumentID)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 2 {
		t.Fatalf("%d chunks, want 2 (one per paragraph)", len(chunks))
	}
	for i, wantChunk := range []int{0, 0, 1} {
		if fs[i].ChunkID != chunks[wantChunk].ID {
			t.Errorf("fact %q ChunkID = %q, want %q", fs[i].Text, fs[i].ChunkID, chunks[wantChunk].ID)
		}
		if fs[i].Speaker != "Carol" {
			t.Errorf("fact %q Speaker = %q, want Carol", fs[i].Text, fs[i].Speaker)
		}
		if fs[i].SourceRef != "" {
			t.Errorf("fact %q SourceRef = %q, want none for plain text", fs[i].Text, fs[i].SourceRef)
		}
	}
	// "last week" on Monday 2023-05-08 is the week of Monday 2023-05-01.
	if got, want := fs[2].OccurredStart, time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("OccurredStart of %q = %v, want %v", fs[2].Text, got, want)
	}
}

// A message's own time is when it was said; a zero time is the item's.
func TestPipeline_Retain_MessageTime(t *testing.T) {
	e := newEnv(t)
	later := monday.Add(30 * time.Minute)
	e.retain(memory.RetainRequest{BankID: "b", At: monday, Messages: []memory.Message{
		{Speaker: "A", Text: "Good morning everyone."},
		{Speaker: "B", Text: "I saw the dentist yesterday.", Time: later.AddDate(0, 0, 3)},
	}})
	fs := facts(t, e.store, "b")
	if len(fs) != 2 {
		t.Fatalf("%d facts, want 2", len(fs))
	}
	if !fs[0].MentionedAt.Equal(monday) {
		t.Errorf("MentionedAt of a message without time = %v, want %v", fs[0].MentionedAt, monday)
	}
	if want := later.AddDate(0, 0, 3); !fs[1].MentionedAt.Equal(want) {
		t.Errorf("MentionedAt of a message with time = %v, want %v", fs[1].MentionedAt, want)
	}
	// "yesterday" resolves against the message's own time (Thursday).
	if want := time.Date(2023, 5, 10, 0, 0, 0, 0, time.UTC); !fs[1].OccurredStart.Equal(want) {
		t.Errorf("OccurredStart = %v, want %v", fs[1].OccurredStart, want)
	}
}

// Without At, the item is said now (the pipeline's clock).
func TestPipeline_Retain_DefaultAt(t *testing.T) {
	e := newEnv(t)
	e.clock.Set(time.Date(2024, 1, 2, 3, 4, 5, 678912345, time.UTC))
	req := memory.RetainRequest{BankID: "b", Text: "I adopted a cat yesterday."}
	res := e.retain(req)
	fs := facts(t, e.store, "b")
	now := time.Date(2024, 1, 2, 3, 4, 5, 678912000, time.UTC) // stored to the microsecond
	if !fs[0].MentionedAt.Equal(now) {
		t.Errorf("MentionedAt = %v, want %v", fs[0].MentionedAt, now)
	}
	if want := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC); !fs[0].OccurredStart.Equal(want) {
		t.Errorf("OccurredStart = %v, want %v", fs[0].OccurredStart, want)
	}
	// The item id is the hash of the request as given.
	_, hash := retain.Canonical(&req)
	doc, err := e.store.DocumentByItem(e.ctx, "b", memory.SourceAPI, hash)
	if err != nil {
		t.Fatal(err)
	}
	if doc.ID != res.DocumentID || !doc.OccurredAt.Equal(now) {
		t.Errorf("document %s OccurredAt = %v, want %s at %v", doc.ID, doc.OccurredAt, res.DocumentID, now)
	}
	// The same text without a time, later, is the same item.
	e.clock.Advance(time.Hour)
	if again := e.retain(req); !again.Duplicate || again.DocumentID != res.DocumentID {
		t.Errorf("same text without a time an hour later = %+v, want a duplicate of %s", again, res.DocumentID)
	}
}

func TestPipeline_Retain_Duplicate(t *testing.T) {
	e := newEnv(t)
	req := memory.RetainRequest{BankID: "b", Source: memory.SourceChat, ItemID: "session-1", At: monday, Messages: conversation}
	first := e.retain(req)
	before := testutil.Stats(t, e.store, "b")
	beforeFacts := facts(t, e.store, "b")

	e.clock.Advance(time.Hour)
	second := e.retain(req)
	want := memory.RetainResult{DocumentID: first.DocumentID, Duplicate: true}
	if !reflect.DeepEqual(*second, want) {
		t.Errorf("second Retain = %+v, want %+v", *second, want)
	}
	if got := testutil.Stats(t, e.store, "b"); got != before {
		t.Errorf("Stats after a duplicate = %+v, want %+v", got, before)
	}
	after := facts(t, e.store, "b")
	if !slices.Equal(factIDs(after), factIDs(beforeFacts)) {
		t.Errorf("facts after a duplicate = %q, want %q", factIDs(after), factIDs(beforeFacts))
	}
	ents, err := e.store.Entities(e.ctx, "b", []string{memory.EntityID("Caroline")})
	if err != nil || len(ents) != 1 {
		t.Fatalf("Entities = %v, %v", ents, err)
	}
	if ents[0].MentionCount != 2 || ents[0].EpisodeCount != 1 {
		t.Errorf("Caroline after a duplicate: %d mentions, %d episodes; want 2, 1", ents[0].MentionCount, ents[0].EpisodeCount)
	}

	// The same content under another item id is a new item.
	req.ItemID = "session-1-copy"
	if res := e.retain(req); res.Duplicate {
		t.Errorf("same content under another item id reported as duplicate")
	}
	// And under another source too.
	req.ItemID, req.Source = "session-1", memory.SourceVoice
	if res := e.retain(req); res.Duplicate {
		t.Errorf("same item under another source reported as duplicate")
	}
	if got := testutil.Stats(t, e.store, "b").Documents; got != 3 {
		t.Errorf("Documents = %d, want 3", got)
	}
}

// noLookup hides stored documents from DocumentByItem, so that a duplicate
// is only caught by Store.Write, as when two writers race.
type noLookup struct{ memory.Store }

func (noLookup) DocumentByItem(ctx context.Context, bank, source, item string) (*memory.Document, error) {
	return nil, memory.Errorf(memory.ENOTFOUND, "hidden")
}

func TestPipeline_Retain_DuplicateAtWrite(t *testing.T) {
	e := newEnv(t)
	req := memory.RetainRequest{BankID: "b", Source: memory.SourceChat, ItemID: "session-1", At: monday, Messages: conversation}
	first := e.retain(req)
	before := testutil.Stats(t, e.store, "b")

	p := retain.New(noLookup{e.store}, e.emb, extract.NewHeuristic())
	p.Now = e.clock.Now
	res, err := p.Retain(e.ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	want := memory.RetainResult{DocumentID: first.DocumentID, Duplicate: true}
	if !reflect.DeepEqual(*res, want) {
		t.Errorf("Retain racing a duplicate = %+v, want %+v", *res, want)
	}
	if got := testutil.Stats(t, e.store, "b"); got != before {
		t.Errorf("Stats = %+v, want %+v", got, before)
	}
}

func TestPipeline_Retain_Replace(t *testing.T) {
	e := newEnv(t)
	first := e.retain(memory.RetainRequest{BankID: "b", ItemID: "note-1", At: monday, Text: "Alice lives in Lisbon. She works at Acme."})
	old := facts(t, e.store, "b")
	if len(old) != 2 {
		t.Fatalf("%d facts, want 2", len(old))
	}
	// Another item that must survive the replacement.
	e.retain(memory.RetainRequest{BankID: "b", ItemID: "note-2", At: monday, Text: "Bob plays the cello."})

	before := e.clock.Now()
	e.clock.Advance(time.Hour)
	second := e.retain(memory.RetainRequest{BankID: "b", ItemID: "note-1", At: monday, Text: "Alice lives in Porto."})
	if !second.Replaced || second.Duplicate {
		t.Errorf("Retain of new content = %+v, want Replaced", second)
	}
	if second.DocumentID == first.DocumentID {
		t.Errorf("replacement kept document id %s", first.DocumentID)
	}
	if second.Facts != 1 {
		t.Errorf("result Facts = %d, want 1", second.Facts)
	}
	// The old version's facts stay, superseded (bi-temporal): history
	// and as-of reads find them, active reads do not.
	got, err := e.store.Facts(e.ctx, "b", factIDs(old))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("old facts readable: %q, want both", texts(got))
	}
	for _, f := range got {
		if f.Status != memory.StatusSuperseded || f.ExpiredAt.IsZero() {
			t.Errorf("old fact %q: status %s, expired at %v; want superseded and expired", f.Text, f.Status, f.ExpiredAt)
		}
	}
	var active []string
	for _, f := range facts(t, e.store, "b") {
		if f.Status == memory.StatusActive {
			active = append(active, f.Text)
		}
	}
	if want := []string{"Bob plays the cello.", "Alice lives in Porto."}; !slices.Equal(active, want) {
		t.Errorf("active facts = %q, want %q", active, want)
	}
	st := testutil.Stats(t, e.store, "b")
	if st.Documents != 2 || st.Chunks != 2 || st.Facts != 4 || st.Active != 2 || st.Superseded != 2 {
		t.Errorf("Stats = %+v, want 2 documents, 2 chunks, 4 facts of which 2 active and 2 superseded", st)
	}
	hits, err := e.store.SearchText(e.ctx, "b", []string{"lisbon"}, 10, memory.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 0 {
		t.Errorf("keyword search of active facts still finds the replaced text: %+v", hits)
	}
	hits, err = e.store.SearchText(e.ctx, "b", []string{"lisbon"}, 10, memory.Filter{AsOf: before})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 {
		t.Errorf("keyword search as of before the replacement: %+v, want the old fact", hits)
	}
	doc, err := e.store.DocumentByItem(e.ctx, "b", memory.SourceAPI, "note-1")
	if err != nil {
		t.Fatal(err)
	}
	if doc.ID != second.DocumentID || doc.Content != "Alice lives in Porto." {
		t.Errorf("document = %s %q, want %s with the new content", doc.ID, doc.Content, second.DocumentID)
	}
}

func TestPipeline_Retain_DefaultItemID(t *testing.T) {
	e := newEnv(t)
	req := memory.RetainRequest{BankID: "b", Text: "Alice moved to Lisbon.", Speaker: "Alice", At: monday}
	res := e.retain(req)
	probe := req
	_, hash := retain.Canonical(&probe)
	if len(hash) != 64 || strings.Trim(hash, "0123456789abcdef") != "" {
		t.Fatalf("content hash %q is not hex SHA-256", hash)
	}
	doc, err := e.store.DocumentByItem(e.ctx, "b", memory.SourceAPI, hash)
	if err != nil {
		t.Fatalf("no document under the content hash as item id (source defaults to %q): %v", memory.SourceAPI, err)
	}
	if doc.ID != res.DocumentID || doc.ItemID != doc.ContentHash {
		t.Errorf("document %s item %q hash %q; want %s with item = hash", doc.ID, doc.ItemID, doc.ContentHash, res.DocumentID)
	}

	// The hash covers the text, the speaker and the time.
	for _, change := range []func(r *memory.RetainRequest){
		func(r *memory.RetainRequest) { r.Text = "Alice moved to Porto." },
		func(r *memory.RetainRequest) { r.Speaker = "Bob" },
		func(r *memory.RetainRequest) { r.At = r.At.Add(time.Microsecond) },
		func(r *memory.RetainRequest) {
			r.Text, r.Messages = "", []memory.Message{{Speaker: "Alice", Text: "Alice moved to Lisbon."}}
		},
	} {
		r := req
		change(&r)
		if _, h := retain.Canonical(&r); h == hash {
			t.Errorf("request %+v has the same hash as %+v", r, req)
		}
	}
	// Retained again without an item id, the same content is a duplicate;
	// other content is another item.
	if res := e.retain(req); !res.Duplicate {
		t.Errorf("same content without item id: %+v, want duplicate", res)
	}
	other := req
	other.Text = "Alice moved to Porto."
	if res := e.retain(other); res.Duplicate || res.Replaced {
		t.Errorf("other content without item id: %+v, want a new item", res)
	}
	if got := testutil.Stats(t, e.store, "b").Documents; got != 2 {
		t.Errorf("Documents = %d, want 2", got)
	}
}

func TestPipeline_Retain_ErrEmbedder(t *testing.T) {
	e := newEnv(t)
	emb := &testutil.FailingEmbedder{Embedder: e.emb, Err: testutil.ErrInjected}
	p := retain.New(e.store, emb, extract.NewHeuristic())
	p.Now = e.clock.Now
	req := memory.RetainRequest{BankID: "b", ItemID: "x", At: monday, Messages: conversation}
	_, err := p.Retain(e.ctx, req)
	if !errors.Is(err, testutil.ErrInjected) {
		t.Fatalf("Retain with a failing embedder: err = %v, want the embedder's error", err)
	}
	if got := testutil.Stats(t, e.store, "b"); got != (memory.Stats{}) {
		t.Errorf("Stats after a failed embed = %+v, want zero", got)
	}
	if _, err := e.store.DocumentByItem(e.ctx, "b", memory.SourceAPI, "x"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("document after a failed embed: err = %v, want ENOTFOUND", err)
	}
	// Once the embedder recovers, the same item is retained in full.
	emb.Err = nil
	res, err := p.Retain(e.ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Duplicate || res.Facts != len(conversation) {
		t.Errorf("retry = %+v, want %d new facts", res, len(conversation))
	}
}

// An embedder that returns fewer vectors than texts is an error, not a
// silent half-embedded item.
type shortEmbedder struct{ memory.Embedder }

func (s shortEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	v, err := s.Embedder.Embed(ctx, texts)
	if err != nil || len(v) == 0 {
		return v, err
	}
	return v[:len(v)-1], nil
}

func TestPipeline_Retain_ErrEmbedderShort(t *testing.T) {
	e := newEnv(t)
	p := retain.New(e.store, shortEmbedder{e.emb}, extract.NewHeuristic())
	p.Now = e.clock.Now
	_, err := p.Retain(e.ctx, memory.RetainRequest{BankID: "b", At: monday, Messages: conversation})
	if err == nil {
		t.Fatal("Retain with a short embedder: no error")
	}
	if got := testutil.Stats(t, e.store, "b"); got != (memory.Stats{}) {
		t.Errorf("Stats = %+v, want zero", got)
	}
}

func TestPipeline_Retain_ErrWrite(t *testing.T) {
	e := newEnv(t)
	fs := &testutil.FailingStore{Store: e.store, WriteErr: testutil.ErrInjected}
	p := retain.New(fs, e.emb, extract.NewHeuristic())
	p.Now = e.clock.Now
	req := memory.RetainRequest{BankID: "b", Source: memory.SourceChat, ItemID: "session-1", At: monday, Messages: conversation}
	res, err := p.Retain(e.ctx, req)
	if !errors.Is(err, testutil.ErrInjected) {
		t.Fatalf("Retain with a failing Write: %+v, %v; want the store's error", res, err)
	}
	if fs.Writes() != 1 {
		t.Errorf("Write called %d times, want 1", fs.Writes())
	}
	if got := testutil.Stats(t, e.store, "b"); got != (memory.Stats{}) {
		t.Errorf("Stats after a failed write = %+v, want zero", got)
	}
	// Nothing was remembered as seen: the retry is not a duplicate.
	fs.WriteErr = nil
	res, err = p.Retain(e.ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Duplicate || res.Facts != len(conversation) {
		t.Errorf("retry = %+v, want %d new facts", res, len(conversation))
	}
}

// lyingEmbedder declares the bank's embedder and dimension but returns
// vectors of another length: the store refuses them inside its write
// transaction, and nothing of the item is left behind.
type lyingEmbedder struct {
	memory.Embedder // returns the vectors
	name            string
	dim             int
}

func (l lyingEmbedder) Name() string   { return l.name }
func (l lyingEmbedder) Dimension() int { return l.dim }

func TestPipeline_Retain_ErrWriteDimension(t *testing.T) {
	e := newEnv(t)
	e.retain(memory.RetainRequest{BankID: "b", ItemID: "first", At: monday, Text: "Bob plays the cello."})
	before := testutil.Stats(t, e.store, "b")
	p := retain.New(e.store, lyingEmbedder{hashembed.New(64), e.emb.Name(), e.emb.Dimension()}, extract.NewHeuristic())
	p.Now = e.clock.Now
	_, err := p.Retain(e.ctx, memory.RetainRequest{BankID: "b", ItemID: "second", At: monday, Messages: conversation})
	if got := memory.ErrorCode(err); got != memory.EINVALID {
		t.Fatalf("Retain of vectors of another dimension: err = %v, want EINVALID", err)
	}
	if got := testutil.Stats(t, e.store, "b"); got != before {
		t.Errorf("Stats = %+v, want %+v", got, before)
	}
	if _, err := e.store.DocumentByItem(e.ctx, "b", memory.SourceAPI, "second"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("document of the refused item: err = %v, want ENOTFOUND", err)
	}
}

func TestPipeline_Retain_ErrConflictEmbedder(t *testing.T) {
	e := newEnv(t)
	e.retain(memory.RetainRequest{BankID: "b", ItemID: "first", At: monday, Text: "Bob plays the cello."})
	before := testutil.Stats(t, e.store, "b")
	for _, emb := range []memory.Embedder{
		&testutil.FailingEmbedder{Embedder: e.emb, NameOverride: "other-embedder"},
		hashembed.New(64),
	} {
		p := retain.New(e.store, emb, extract.NewHeuristic())
		p.Now = e.clock.Now
		_, err := p.Retain(e.ctx, memory.RetainRequest{BankID: "b", ItemID: "second", At: monday, Text: "Alice moved to Lisbon."})
		if got := memory.ErrorCode(err); got != memory.ECONFLICT {
			t.Errorf("Retain with embedder %s on a bank of %s: err = %v, want ECONFLICT", emb.Name(), e.emb.Name(), err)
		}
	}
	if got := testutil.Stats(t, e.store, "b"); got != before {
		t.Errorf("Stats = %+v, want %+v", got, before)
	}
	b, err := e.store.Bank(e.ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if b.Embedder != e.emb.Name() || b.Dimension != e.emb.Dimension() {
		t.Errorf("bank embedder = %s/%d, want %s/%d", b.Embedder, b.Dimension, e.emb.Name(), e.emb.Dimension())
	}
}

func TestPipeline_Retain_ErrNotFound(t *testing.T) {
	e := newEnv(t)
	_, err := e.p.Retain(e.ctx, memory.RetainRequest{BankID: "nope", Text: "Alice moved to Lisbon."})
	if got := memory.ErrorCode(err); got != memory.ENOTFOUND {
		t.Errorf("Retain into an unknown bank: err = %v, want ENOTFOUND", err)
	}
	if _, err := e.store.Bank(e.ctx, "nope"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("Retain created the unknown bank: %v", err)
	}
}

// Facts are embedded in batches of EmbedBatch, each vector landing on its
// own fact.
func TestPipeline_Retain_EmbedBatch(t *testing.T) {
	e := newEnv(t)
	emb := &testutil.FailingEmbedder{Embedder: e.emb}
	p := retain.New(e.store, emb, extract.NewHeuristic())
	p.Now, p.EmbedBatch = e.clock.Now, 2
	var msgs []memory.Message
	for _, s := range []string{"Alice plays tennis.", "Bob bakes sourdough.", "Carol repairs bicycles.", "Dave climbs mountains.", "Erin writes poetry."} {
		msgs = append(msgs, memory.Message{Text: s})
	}
	if _, err := p.Retain(e.ctx, memory.RetainRequest{BankID: "b", At: monday, Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	if got := emb.Calls(); got != 3 {
		t.Errorf("Embed called %d times for 5 facts in batches of 2, want 3", got)
	}
	for _, f := range facts(t, e.store, "b") {
		hits, err := e.store.SearchVector(e.ctx, "b", e.emb.EmbedOne(retain.EmbedText(f)), 1, memory.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 || hits[0].ID != f.ID {
			t.Errorf("nearest fact to the embedding of %q = %+v, want itself", f.Text, hits)
		}
	}
}

func TestPipeline_Retain_Canceled(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	if _, err := e.p.Retain(ctx, memory.RetainRequest{BankID: "b", At: monday, Messages: conversation}); err == nil {
		t.Fatal("Retain with a canceled context: no error")
	}
	if got := testutil.Stats(t, e.store, "b"); got != (memory.Stats{}) {
		t.Errorf("Stats = %+v, want zero", got)
	}
}

func TestEmbedText(t *testing.T) {
	for _, tt := range []struct {
		f    memory.Fact
		want string
	}{
		{memory.Fact{Text: "I went to a support group."}, "I went to a support group."},
		{memory.Fact{Speaker: "Caroline", Text: "I went to a support group."}, "Caroline: I went to a support group."},
	} {
		if got := retain.EmbedText(&tt.f); got != tt.want {
			t.Errorf("EmbedText(%+v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

// stubExtractor returns a fixed result or error: the heuristic extractor
// never returns an empty result, so the pipeline's own guards need one.
type stubExtractor struct {
	res *extract.Result
	err error
}

func (s stubExtractor) Extract(context.Context, extract.Input) (*extract.Result, error) {
	return s.res, s.err
}

func TestPipeline_Retain_Extractor(t *testing.T) {
	t.Run("ErrNoFacts", func(t *testing.T) {
		e := newEnv(t)
		p := retain.New(e.store, e.emb, stubExtractor{res: &extract.Result{Chunks: []string{"..."}}})
		_, err := p.Retain(e.ctx, memory.RetainRequest{BankID: "b", Text: "..."})
		if got := memory.ErrorCode(err); got != memory.EINVALID {
			t.Errorf("Retain with no facts extracted: err = %v, want EINVALID", err)
		}
		if got := testutil.Stats(t, e.store, "b"); got != (memory.Stats{}) {
			t.Errorf("Stats = %+v, want zero", got)
		}
	})
	t.Run("Err", func(t *testing.T) {
		e := newEnv(t)
		p := retain.New(e.store, e.emb, stubExtractor{err: testutil.ErrInjected})
		if _, err := p.Retain(e.ctx, memory.RetainRequest{BankID: "b", Text: "Hello there."}); !errors.Is(err, testutil.ErrInjected) {
			t.Errorf("Retain with a failing extractor: err = %v, want the extractor's", err)
		}
		if got := testutil.Stats(t, e.store, "b"); got != (memory.Stats{}) {
			t.Errorf("Stats = %+v, want zero", got)
		}
	})
	t.Run("ChunkOutOfRange", func(t *testing.T) {
		e := newEnv(t)
		p := retain.New(e.store, e.emb, stubExtractor{res: &extract.Result{
			Chunks: []string{"Hello there."},
			Facts: []extract.Fact{
				{Text: "Hello there.", Chunk: 0},
				{Text: "General Kenobi.", Chunk: 5},
				{Text: "You are a bold one.", Chunk: -1},
			},
		}})
		p.Now = e.clock.Now
		if _, err := p.Retain(e.ctx, memory.RetainRequest{BankID: "b", Text: "Hello there."}); err != nil {
			t.Fatal(err)
		}
		fs := facts(t, e.store, "b")
		if len(fs) != 3 {
			t.Fatalf("%d facts, want 3", len(fs))
		}
		if fs[0].ChunkID == "" {
			t.Errorf("fact of chunk 0 has no chunk id")
		}
		for _, f := range fs[1:] {
			if f.ChunkID != "" {
				t.Errorf("fact %q of a chunk out of range has ChunkID %q, want none", f.Text, f.ChunkID)
			}
		}
		// Defaults the pipeline fills: active status, the entity type of an
		// untyped entity, the clock's time.
		for _, f := range fs {
			if f.Status != memory.StatusActive || !f.CreatedAt.Equal(e.clock.Now()) {
				t.Errorf("fact %q: status %q created %v", f.Text, f.Status, f.CreatedAt)
			}
		}
	})
	t.Run("UntypedEntity", func(t *testing.T) {
		e := newEnv(t)
		p := retain.New(e.store, e.emb, stubExtractor{res: &extract.Result{
			Chunks: []string{"Kenobi."},
			Facts: []extract.Fact{{Text: "Kenobi.", Entities: []extract.Entity{
				{Name: "Kenobi"}, {Name: "kenobi"}, {Name: "!!!"},
			}}},
		}})
		if _, err := p.Retain(e.ctx, memory.RetainRequest{BankID: "b", Text: "Kenobi."}); err != nil {
			t.Fatal(err)
		}
		id := memory.EntityID("Kenobi")
		ents, err := e.store.Entities(e.ctx, "b", []string{id})
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) != 1 || ents[0].Type != memory.EntityThing || ents[0].MentionCount != 1 {
			t.Fatalf("entities = %+v, want one thing Kenobi mentioned once", ents)
		}
		if got := testutil.Stats(t, e.store, "b").Entities; got != 1 {
			t.Errorf("Stats.Entities = %d, want 1 (a duplicate and a nameless entity dropped)", got)
		}
	})
}

// TestPipeline_Retain_OneEntityPerName checks that one name is one entity
// of a bank whatever type its mentions give it: within a retain its type
// is the best known (a place or person upgrades a thing), and a later
// retain that types it otherwise adds to the same entity.
func TestPipeline_Retain_OneEntityPerName(t *testing.T) {
	t.Run("Offline", func(t *testing.T) {
		e := newEnv(t)
		// The heuristic extractor reads "Berlin" opening a sentence as a
		// thing and after "in" as a place.
		e.retain(memory.RetainRequest{BankID: "b", Text: "Berlin is big and loud. We moved to a flat in Berlin last year."})
		e.retain(memory.RetainRequest{BankID: "b", Text: "I love Berlin."})
		ents, err := e.store.EntitiesByName(e.ctx, "b", []string{"berlin"})
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) != 1 || ents[0].ID != memory.EntityID("Berlin") || ents[0].Type != memory.EntityPlace {
			t.Fatalf("entities named Berlin = %+v, want one place", ents)
		}
		if got := ents[0].MentionCount; got != 3 {
			t.Errorf("MentionCount = %d, want 3 (one a fact)", got)
		}
	})
	t.Run("LaterRetainTypes", func(t *testing.T) {
		// A thing in one retain, a place in the next: one Berlin, a place.
		e := newEnv(t)
		e.retain(memory.RetainRequest{BankID: "b", Text: "I love Berlin."})
		e.retain(memory.RetainRequest{BankID: "b", Text: "We moved to a flat in Berlin last year."})
		ents, err := e.store.EntitiesByName(e.ctx, "b", []string{"berlin"})
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) != 1 || ents[0].Type != memory.EntityPlace || ents[0].MentionCount != 2 {
			t.Fatalf("entities named Berlin = %d, first %+v, want one place of 2 mentions", len(ents), *ents[0])
		}
	})
	t.Run("TypesInOneFact", func(t *testing.T) {
		tests := []struct {
			name  string
			types []memory.EntityType
			want  memory.EntityType
		}{
			{"ThingThenPlace", []memory.EntityType{memory.EntityThing, memory.EntityPlace}, memory.EntityPlace},
			{"PlaceThenThing", []memory.EntityType{memory.EntityPlace, memory.EntityThing}, memory.EntityPlace},
			{"UntypedThenPerson", []memory.EntityType{"", memory.EntityPerson}, memory.EntityPerson},
			{"PersonThenPlace", []memory.EntityType{memory.EntityPerson, memory.EntityPlace}, memory.EntityPerson},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				e := newEnv(t)
				var xfs []extract.Fact
				for _, typ := range tt.types {
					xfs = append(xfs, extract.Fact{Text: "Jordan.", Entities: []extract.Entity{{Name: "Jordan", Type: typ}}})
				}
				// The types of one name in one fact, then in two facts.
				one := extract.Fact{Text: "Jordan!"}
				for _, xf := range xfs {
					one.Entities = append(one.Entities, xf.Entities...)
				}
				for i, fs := range [][]extract.Fact{{one}, xfs} {
					p := retain.New(e.store, e.emb, stubExtractor{res: &extract.Result{Chunks: []string{"Jordan."}, Facts: fs}})
					bank := "b" + strconv.Itoa(i)
					testutil.CreateBank(t, e.store, bank)
					if _, err := p.Retain(e.ctx, memory.RetainRequest{BankID: bank, Text: "Jordan."}); err != nil {
						t.Fatal(err)
					}
					ents, err := e.store.EntitiesByName(e.ctx, bank, []string{"jordan"})
					if err != nil {
						t.Fatal(err)
					}
					if len(ents) != 1 || ents[0].Type != tt.want || ents[0].MentionCount != len(fs) {
						t.Errorf("%d facts: entities = %+v, want one %s mentioned %d times", len(fs), ents, tt.want, len(fs))
					}
				}
			})
		}
	})
}
