package storetest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Run runs the conformance suite against stores made by open. open returns
// a new, empty store for each subtest; the caller registers its cleanup
// (Close, removing files) with t.Cleanup. Subtests do not run in parallel.
func Run(t *testing.T, open func(t *testing.T) memory.Store) {
	for _, g := range suite {
		t.Run(g.name, func(t *testing.T) {
			for _, c := range g.cases {
				t.Run(c.name, func(t *testing.T) {
					s := open(t)
					if s == nil {
						t.Fatal("open returned a nil store")
					}
					c.fn(&env{t: t, ctx: t.Context(), s: s, open: open})
				})
			}
		})
	}
}

type testCase struct {
	name string
	fn   func(e *env)
}

// suite lists every subtest, grouped as they appear under Run.
var suite = []struct {
	name  string
	cases []testCase
}{
	{"Bank", []testCase{
		{"CreateGet", testBankCreateGet},
		{"CreateByName", testBankCreateByName},
		{"List", testBankList},
		{"ErrConflict", testBankErrConflict},
		{"ErrInvalid", testBankErrInvalid},
		{"ErrNotFound", testBankErrNotFound},
		{"Delete", testBankDelete},
		{"SetEmbedder", testBankSetEmbedder},
		{"UnknownBank", testBankUnknown},
	}},
	{"BankSettings", []testCase{{"Set", testBankSettingsSet}, {"ErrInvalid", testBankSettingsErrInvalid}}}, // banksettings.go
	{"Write", []testCase{
		{"RoundTrip", testWriteRoundTrip},
		{"ZeroTimes", testWriteZeroTimes},
		{"Seq", testWriteSeq},
		{"RecordsDimension", testWriteRecordsDimension},
		{"EntityUpsert", testWriteEntityUpsert},
		{"RelationUpsert", testWriteRelationUpsert},
		{"Continue", testWriteContinue},         // segment.go
		{"ContinueGone", testWriteContinueGone}, // segment.go
	}},
	{"Idempotency", []testCase{
		{"Duplicate", testIdempotencyDuplicate},
		{"Replace", testIdempotencyReplace},
		{"ReplaceSameIDs", testIdempotencyReplaceSameIDs},
	}},
	{"Graph", []testCase{
		{"Relations", testGraphRelations},
		{"CloseOnce", testGraphCloseOnce},
		{"SupersedeOnce", testGraphSupersedeOnce},
		{"SupersededBy", testGraphSupersededBy},
		{"SimilarEntities", testGraphSimilarEntities},
		{"Contradicted", testGraphContradicted},
	}},
	{"Observation", []testCase{
		{"RoundTrip", testObservationRoundTrip},
		{"Search", testObservationSearch},
		{"ListOrder", testObservationListOrder}, {"ListErrors", testObservationListErrors}, // observationlist.go
	}},
	{"Atomicity", []testCase{
		{"DuplicateFactID", testAtomicityDuplicateFactID},
		{"ExistingFactID", testAtomicityExistingFactID},
		{"DimensionMismatch", testAtomicityDimensionMismatch},
		{"UnknownReinforce", testAtomicityUnknownReinforce},
		{"UnknownSupersede", testAtomicityUnknownSupersede},
		{"WriteMany", testAtomicityWriteMany},
	}},
	{"Isolation", []testCase{
		{"Reads", testIsolationReads},
		{"DeleteBank", testIsolationDeleteBank},
	}},
	{"SearchText", []testCase{
		{"Ranking", testSearchTextRanking},
		{"Stemming", testSearchTextStemming},
		{"NoMatch", testSearchTextNoMatch},
		{"Injection", testSearchTextInjection},
		{"Filter", testSearchTextFilter},
		{"Speaker", testSearchTextSpeaker},
		{"CJK", testSearchTextCJK},
	}},
	{"SearchVector", []testCase{
		{"BruteForce", testSearchVectorBruteForce},
		{"Filter", testSearchVectorFilter},
	}},
	{"Neighbours", []testCase{ // neighbours.go
		{"Window", testNeighboursWindow},
		{"Status", testNeighboursStatus},
		{"Isolation", testNeighboursIsolation},
	}},
	{"SearchDocuments", []testCase{ // documents.go; optional: memory.DocumentSearcher
		{"Ranking", testSearchDocumentsRanking},
		{"Lifecycle", testSearchDocumentsLifecycle},
		{"Isolation", testSearchDocumentsIsolation},
		{"Speaker", testSearchDocumentsSpeaker},
	}},
	{"Filter", []testCase{
		{"EventTime", testFilterEventTime},
	}},
	{"Lifecycle", []testCase{
		{"AsOf", testLifecycleAsOf},
		{"Supersede", testLifecycleSupersede},
		{"Reinforce", testLifecycleReinforce},
		{"RecordAccess", testLifecycleRecordAccess},
		{"Sensitive", testLifecycleSensitive},
	}},
	{"Stats", []testCase{
		{"Counts", testStatsCounts},
	}},
	{"Concurrency", []testCase{
		{"WriteAndSearch", testConcurrencyWriteAndSearch},
	}},
	{"Jobs", []testCase{ // queue.go
		{"Enqueue", testJobsEnqueue},
		{"List", testJobsList},
		{"ClaimOrder", testJobsClaimOrder},
		{"Finish", testJobsFinish},
		{"ClaimConcurrent", testJobsClaimConcurrent},
		{"Requeue", testJobsRequeue},
		{"Renew", testJobsRenew},
		{"Isolation", testJobsIsolation},
	}},
	{"Sessions", []testCase{
		{"Append", testSessionsAppend},
		{"ErrInvalid", testSessionsErrInvalid},
		{"Drain", testSessionsDrain},
		{"DrainAtomic", testSessionsDrainAtomic},
		{"Isolation", testSessionsIsolation},
	}},
	{"Watermark", []testCase{
		{"Read", testWatermarkRead},
	}},
	{"Keys", []testCase{{"CreateGet", testKeysCreateGet}, {"List", testKeysList}, {"Revoke", testKeysRevoke}, {"ErrConflict", testKeysErrConflict}, {"ErrInvalid", testKeysErrInvalid}, {"OutliveBank", testKeysOutliveBank}}}, // keys.go
	{"Webhooks", []testCase{{"CreateList", testWebhooksCreateList}, {"Err", testWebhooksErr}}},                                                                                                                                 // webhook.go
	{"Blocks", []testCase{ // block.go
		{"RoundTrip", testBlocksRoundTrip},
		{"Limits", testBlocksLimits},
		{"Concurrent", testBlocksConcurrent},
		{"Isolation", testBlocksIsolation},
		{"UnknownBank", testBlocksUnknownBank},
	}},
	{"Forget", []testCase{ // forget.go
		{"ByID", testForgetByID}, {"ByDocument", testForgetByDocument}, {"ByEntity", testForgetByEntity}, {"ByTime", testForgetByTime},
		{"Observations", testForgetObservations}, {"Audit", testForgetAudit}, {"Errors", testForgetErrors}, {"Isolation", testForgetIsolation},
		{"ByItem", testForgetByItem},
	}},
	{"FactList", []testCase{ // facts.go: memory.FactLister, memory.Lifecycle
		{"Pages", testFactListPages},
		{"Filters", testFactListFilters},
		{"Errors", testFactListErrors},
		{"Isolation", testFactListIsolation},
		{"Entities", testFactListEntities},
		{"StatusRoundTrip", testFactStatusRoundTrip},
		{"StatusErrors", testFactStatusErrors},
	}},
	{"Merge", []testCase{{"Move", testMergeMove}, {"Again", testMergeAgain}, {"Errors", testMergeErrors}}},                                               // merge.go: memory.FactMerger
	{"FactGroup", []testCase{{"Vectors", testFactVectors}, {"Verdicts", testPairVerdicts}, {"Group", testGroupFacts}, {"GroupErrors", testGroupErrors}}}, // group.go: memory.FactVectors, memory.MergeVerdicts, memory.FactGrouper
	{"Consolidate", []testCase{{"Runs", testRunsRoundTrip}, {"RunsErrors", testRunsErrors}, {"Decay", testDecayApply}}},                                  // consolidate.go: memory.Runs, memory.Decay
	{"Dreams", []testCase{ // dream.go: memory.Dreams
		{"RoundTrip", testDreamsRoundTrip}, {"Errors", testDreamsErrors}, {"NeverSearched", testDreamsNeverSearched}, {"Forget", testDreamsForget},
	}},
	{"ObservationStatus", []testCase{ // observationstatus.go: memory.ObservationLifecycle
		{"RoundTrip", testObservationStatusRoundTrip}, {"Errors", testObservationStatusErrors}, {"Access", testObservationAccess},
	}},
	{"Temporal", []testCase{ // temporal.go: memory.EntityTimelines, memory.ImportanceScores
		{"Busy", testTemporalBusy}, {"Marks", testTemporalMarks}, {"Timeline", testTemporalTimeline},
		{"Importance", testTemporalImportance}, {"Errors", testTemporalErrors},
	}},
	{"Pending", []testCase{ // pending.go; optional: memory.PendingFacts, memory.ObservationVectors
		{"Walk", testPendingWalk}, {"Mark", testPendingMark}, {"Errors", testPendingErrors}, {"ObservationVectors", testPendingObservationVectors},
	}},
	{"ShortTerm", []testCase{ // shortterm.go: FactQuery.ExpiresBy, memory.Promoter
		{"List", testShortTermList},
		{"Promote", testShortTermPromote},
		{"RoundTrip", testShortTermRoundTrip},
	}},
	{"Directives", []testCase{ // directive.go: memory.Directives
		{"RoundTrip", testDirectivesRoundTrip}, {"Errors", testDirectivesErrors}, {"Isolation", testDirectivesIsolation},
	}},
	{"Communities", []testCase{ // community.go: memory.Communities
		{"Graph", testCommunityGraph}, {"RoundTrip", testCommunityRoundTrip}, {"Errors", testCommunityErrors}, {"Isolation", testCommunityIsolation},
	}},
	{"Export", []testCase{ // export.go; optional: memory.Exporter, memory.Importer
		{"Golden", testExportGolden},
		{"RoundTrip", testExportRoundTrip},
		{"Errors", testExportErrors},
	}},
	{"Standing", []testCase{{"RoundTrip", testStandingRoundTrip}, {"Errors", testStandingErrors}}}, // standing.go: memory.StandingAnswers
}

// env is one subtest's store with helpers that fail the test on an
// unexpected error. Tests that expect an error call the store directly.
type env struct {
	t   *testing.T
	ctx context.Context
	s   memory.Store
	// open makes another new store (Run's open).
	open func(t *testing.T) memory.Store
}

// newBank creates a bank named id whose vectors come from the suite's
// embedder (dimension TestDimension).
func (e *env) newBank(id string) {
	e.t.Helper()
	e.newBankDim(id, TestEmbedder, TestDimension)
}

func (e *env) newBankDim(id, embedder string, dim int) {
	e.t.Helper()
	if err := e.s.CreateBank(e.ctx, &memory.Bank{ID: id, Name: id, CreatedAt: testTime}); err != nil {
		e.t.Fatalf("CreateBank(%q): %v", id, err)
	}
	if err := e.s.SetBankEmbedder(e.ctx, id, embedder, dim); err != nil {
		e.t.Fatalf("SetBankEmbedder(%q, %q, %d): %v", id, embedder, dim, err)
	}
}

func (e *env) bank(id string) *memory.Bank {
	e.t.Helper()
	b, err := e.s.Bank(e.ctx, id)
	if err != nil {
		e.t.Fatalf("Bank(%q): %v", id, err)
	}
	if b == nil {
		e.t.Fatalf("Bank(%q): nil", id)
	}
	return b
}

// write writes a deep copy of w, so that w stays what the test expects
// to read back even if the store changes the batch it is given.
func (e *env) write(w *memory.WriteBatch) *memory.WriteResult {
	e.t.Helper()
	res, err := e.s.Write(e.ctx, cloneBatch(w))
	if err != nil {
		e.t.Fatalf("Write(bank %q, document %s): %v", w.BankID, docName(w), err)
	}
	if res == nil {
		e.t.Fatalf("Write(bank %q, document %s): nil result", w.BankID, docName(w))
	}
	return res
}

// writeNew writes a batch that must store something new.
func (e *env) writeNew(w *memory.WriteBatch) *memory.WriteResult {
	e.t.Helper()
	res := e.write(w)
	if res.Duplicate || res.Replaced {
		e.t.Fatalf("Write(bank %q, document %s): got Duplicate %v, Replaced %v, want a new document", w.BankID, docName(w), res.Duplicate, res.Replaced)
	}
	return res
}

func docName(w *memory.WriteBatch) string {
	if w.Document == nil {
		return "<none>"
	}
	return w.Document.ID
}

func (e *env) facts(bank string, ids ...string) []*memory.Fact {
	e.t.Helper()
	fs, err := e.s.Facts(e.ctx, bank, ids)
	if err != nil {
		e.t.Fatalf("Facts(%q, %q): %v", bank, ids, err)
	}
	noNil(e.t, "Facts", fs)
	return fs
}

// fact returns one fact, failing the test if it does not exist.
func (e *env) fact(bank, id string) *memory.Fact {
	e.t.Helper()
	fs := e.facts(bank, id)
	if len(fs) != 1 || fs[0].ID != id {
		e.t.Fatalf("Facts(%q, [%q]): got %d facts %q, want the fact", bank, id, len(fs), factIDs(fs))
	}
	return fs[0]
}

func (e *env) stats(bank string) memory.Stats {
	e.t.Helper()
	st, err := e.s.Stats(e.ctx, bank)
	if err != nil {
		e.t.Fatalf("Stats(%q): %v", bank, err)
	}
	if st == nil {
		e.t.Fatalf("Stats(%q): nil", bank)
	}
	return *st
}

func (e *env) searchText(bank string, k int, f memory.Filter, terms ...string) []memory.Hit {
	e.t.Helper()
	hits, err := e.s.SearchText(e.ctx, bank, terms, k, f)
	if err != nil {
		e.t.Fatalf("SearchText(%q, %q, %d, %+v): %v", bank, terms, k, f, err)
	}
	return hits
}

func (e *env) searchVector(bank string, vec []float32, k int, f memory.Filter) []memory.Hit {
	e.t.Helper()
	hits, err := e.s.SearchVector(e.ctx, bank, vec, k, f)
	if err != nil {
		e.t.Fatalf("SearchVector(%q, %d, %+v): %v", bank, k, f, err)
	}
	return hits
}

// passing returns the ids of every fact of a small bank (at most
// passingMax facts) that passes f, in no particular order: a vector
// search whose k exceeds the bank, every fact having an embedding.
func (e *env) passing(bank string, f memory.Filter) []string {
	e.t.Helper()
	return hitIDs(e.searchVector(bank, TestVector("passing", TestDimension), passingMax, f))
}

// passingMax bounds the banks passing reads whole.
const passingMax = 1000

func (e *env) links(bank string, ids []string, kinds ...memory.LinkKind) []memory.Link {
	e.t.Helper()
	ls, err := e.s.Links(e.ctx, bank, ids, kinds...)
	if err != nil {
		e.t.Fatalf("Links(%q, %q, %q): %v", bank, ids, kinds, err)
	}
	return ls
}

func (e *env) refs(bank string, ids ...string) []memory.EntityRef {
	e.t.Helper()
	rs, err := e.s.EntityRefs(e.ctx, bank, ids)
	if err != nil {
		e.t.Fatalf("EntityRefs(%q, %q): %v", bank, ids, err)
	}
	return rs
}

func (e *env) entities(bank string, ids ...string) []*memory.Entity {
	e.t.Helper()
	es, err := e.s.Entities(e.ctx, bank, ids)
	if err != nil {
		e.t.Fatalf("Entities(%q, %q): %v", bank, ids, err)
	}
	noNil(e.t, "Entities", es)
	return es
}

// entity returns one entity, failing the test if it does not exist.
func (e *env) entity(bank, id string) *memory.Entity {
	e.t.Helper()
	es := e.entities(bank, id)
	if len(es) != 1 || es[0].ID != id {
		e.t.Fatalf("Entities(%q, [%q]): got %d entities, want the entity", bank, id, len(es))
	}
	return es[0]
}

func (e *env) entitiesByName(bank string, names ...string) []*memory.Entity {
	e.t.Helper()
	es, err := e.s.EntitiesByName(e.ctx, bank, names)
	if err != nil {
		e.t.Fatalf("EntitiesByName(%q, %q): %v", bank, names, err)
	}
	noNil(e.t, "EntitiesByName", es)
	return es
}

func (e *env) factsByEntity(bank, entityID string, limit int) []string {
	e.t.Helper()
	m, err := e.s.FactsByEntities(e.ctx, bank, []string{entityID}, limit)
	ids := m[entityID]
	if err != nil {
		e.t.Fatalf("FactsByEntity(%q, %q, %d): %v", bank, entityID, limit, err)
	}
	return ids
}

func (e *env) document(bank, source, item string) *memory.Document {
	e.t.Helper()
	d, err := e.s.DocumentByItem(e.ctx, bank, source, item)
	if err != nil {
		e.t.Fatalf("DocumentByItem(%q, %q, %q): %v", bank, source, item, err)
	}
	return d
}

// noDocument checks that (source, item) holds no document.
func (e *env) noDocument(bank, source, item string) {
	e.t.Helper()
	d, err := e.s.DocumentByItem(e.ctx, bank, source, item)
	if code := memory.ErrorCode(err); code != memory.ENOTFOUND {
		e.t.Errorf("DocumentByItem(%q, %q, %q): got %v, error %v (code %q), want code %q", bank, source, item, d, err, code, memory.ENOTFOUND)
	}
}

func (e *env) chunks(bank, documentID string) []*memory.Chunk {
	e.t.Helper()
	cs, err := e.s.Chunks(e.ctx, bank, documentID)
	if err != nil {
		e.t.Fatalf("Chunks(%q, %q): %v", bank, documentID, err)
	}
	noNil(e.t, "Chunks", cs)
	return cs
}

// noNil fails the test if a method returned a nil element.
func noNil[T any](t *testing.T, method string, xs []*T) {
	t.Helper()
	for i, x := range xs {
		if x == nil {
			t.Fatalf("%s: element %d is nil", method, i)
		}
	}
}

// wantCode checks that err is an error with one of codes.
func wantCode(t *testing.T, what string, err error, codes ...string) {
	t.Helper()
	code := memory.ErrorCode(err)
	if err == nil || !slices.Contains(codes, code) {
		t.Errorf("%s: got error %v (code %q), want code %s", what, err, code, strings.Join(codes, " or "))
	}
}

// diff lists the fields in which got differs from want, two values of one
// struct type. Times compare with Equal; a nil and an empty slice or map
// are equal; fields named in skip are ignored.
func diff(got, want any, skip ...string) []string {
	gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
	if gv.Kind() == reflect.Pointer {
		if gv.IsNil() || wv.IsNil() {
			if gv.IsNil() != wv.IsNil() {
				return []string{fmt.Sprintf("got %v, want %v", got, want)}
			}
			return nil
		}
		gv, wv = gv.Elem(), wv.Elem()
	}
	var out []string
	for i := range gv.NumField() {
		name := gv.Type().Field(i).Name
		if slices.Contains(skip, name) {
			continue
		}
		g, w := gv.Field(i), wv.Field(i)
		if !equalValue(g, w) {
			out = append(out, fmt.Sprintf("%s: got %v, want %v", name, show(g), show(w)))
		}
	}
	return out
}

var timeType = reflect.TypeFor[time.Time]()

func equalValue(g, w reflect.Value) bool {
	switch {
	case g.Type() == timeType:
		return g.Interface().(time.Time).Equal(w.Interface().(time.Time))
	case g.Kind() == reflect.Slice || g.Kind() == reflect.Map:
		if g.Len() == 0 && w.Len() == 0 {
			return true
		}
	}
	return reflect.DeepEqual(g.Interface(), w.Interface())
}

func show(v reflect.Value) any {
	if v.Type() == timeType {
		t := v.Interface().(time.Time)
		if t.IsZero() {
			return "zero time"
		}
		return t.Format(time.RFC3339Nano)
	}
	if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String {
		return fmt.Sprintf("%q", v.Interface())
	}
	return v.Interface()
}

// checkDiff reports every field in which got differs from want.
func checkDiff(t *testing.T, what string, got, want any, skip ...string) {
	t.Helper()
	for _, d := range diff(got, want, skip...) {
		t.Errorf("%s: %s", what, d)
	}
}

// checkFact compares a fact read back with the fact written. Seq is
// assigned by the store and embeddings are not loaded, so neither is
// compared; a fact written with no status reads back active.
func checkFact(t *testing.T, got, want *memory.Fact) {
	t.Helper()
	w := *want
	if w.Status == "" {
		w.Status = memory.StatusActive
	}
	checkDiff(t, "fact "+want.ID, got, &w, "Seq", "Embedding")
}

func factIDs(fs []*memory.Fact) []string {
	ids := make([]string, len(fs))
	for i, f := range fs {
		ids[i] = f.ID
	}
	return ids
}

func hitIDs(hs []memory.Hit) []string {
	ids := make([]string, len(hs))
	for i, h := range hs {
		ids[i] = h.ID
	}
	return ids
}

func entityIDs(es []*memory.Entity) []string {
	ids := make([]string, len(es))
	for i, x := range es {
		ids[i] = x.ID
	}
	return ids
}

// sameSet reports whether a and b hold the same strings, ignoring order
// (and counting duplicates).
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// checkIDs checks that got holds exactly the ids of want, in order.
func checkIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: got %q, want %q", what, got, want)
	}
}

// checkIDSet checks that got holds exactly the ids of want, in any order.
func checkIDSet(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !sameSet(got, want) {
		slices.Sort(got)
		slices.Sort(want)
		t.Errorf("%s: got %q, want %q (in any order)", what, got, want)
	}
}

// checkSorted checks that hits are best first: scores never increase.
func checkSorted(t *testing.T, what string, hits []memory.Hit) {
	t.Helper()
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("%s: hit %d (%s) scores %g above hit %d (%s, %g): want best first", what, i, hits[i].ID, hits[i].Score, i-1, hits[i-1].ID, hits[i-1].Score)
		}
	}
}

// passes reports whether f passes flt: the semantics of memory.Filter
// every store implements. Statuses nil (or empty) means active only; the
// event time (Fact.EventTime) must lie in [From, To), a zero bound being
// open; Kinds, Categories and Tags match any of theirs when given; sensitive facts
// pass only when flt.Sensitive is set; with AsOf, only facts known then
// pass, with the status they had then (memory.KnownAt, memory.StatusAt).
func passes(f *memory.Fact, flt memory.Filter) bool {
	status := f.Status
	if status == "" {
		status = memory.StatusActive
	}
	if !flt.AsOf.IsZero() {
		if !memory.KnownAt(f, flt.AsOf) {
			return false
		}
		status = memory.StatusAt(f, flt.AsOf)
	}
	if len(flt.Statuses) == 0 {
		if status != memory.StatusActive {
			return false
		}
	} else if !slices.Contains(flt.Statuses, status) {
		return false
	}
	if len(flt.Kinds) > 0 && !slices.Contains(flt.Kinds, f.Kind) {
		return false
	}
	if len(flt.Categories) > 0 && !slices.Contains(flt.Categories, f.Category) {
		return false
	}
	if len(flt.Tags) > 0 && !slices.ContainsFunc(f.Tags, func(tag string) bool { return slices.Contains(flt.Tags, tag) }) {
		return false
	}
	et := f.EventTime()
	if !flt.From.IsZero() && et.Before(flt.From) {
		return false
	}
	if !flt.To.IsZero() && !et.Before(flt.To) {
		return false
	}
	if f.Sensitivity == memory.SensitivitySensitive && !flt.Sensitive {
		return false
	}
	return true
}
