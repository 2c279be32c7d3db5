package storetest

import (
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

func testBankCreateGet(e *env) {
	want := &memory.Bank{
		ID:   "alice",
		Name: "alice",
		Settings: memory.BankSettings{
			Skepticism:          4,
			Literalism:          2,
			Empathy:             5,
			Mission:             "help Alice remember her trips",
			Background:          "Alice is a botanist",
			ShortTermTTL:        36 * time.Hour,
			ConsolidateInterval: 45 * time.Second,
		},
		CreatedAt: testTime,
	}
	in := *want
	if err := e.s.CreateBank(e.ctx, &in); err != nil {
		e.t.Fatalf("CreateBank: %v", err)
	}
	checkDiff(e.t, "Bank(alice)", e.bank("alice"), want)
}

// A bank created by name only gets its name as id (memory.Bank.ID).
func testBankCreateByName(e *env) {
	if err := e.s.CreateBank(e.ctx, &memory.Bank{Name: "bob", CreatedAt: testTime}); err != nil {
		e.t.Fatalf("CreateBank(Name bob): %v", err)
	}
	b := e.bank("bob")
	if b.ID != "bob" || b.Name != "bob" {
		e.t.Errorf("Bank(bob): got ID %q, Name %q, want bob, bob", b.ID, b.Name)
	}
}

func testBankList(e *env) {
	bs, err := e.s.Banks(e.ctx)
	if err != nil {
		e.t.Fatalf("Banks: %v", err)
	}
	if len(bs) != 0 {
		e.t.Errorf("Banks on an empty store: got %d banks, want none", len(bs))
	}
	for _, id := range []string{"c", "b:x", "a", "b", "B"} {
		e.newBank(id)
	}
	bs, err = e.s.Banks(e.ctx)
	if err != nil {
		e.t.Fatalf("Banks: %v", err)
	}
	var got []string
	for _, b := range bs {
		got = append(got, b.ID)
		if b.Embedder != TestEmbedder || b.Dimension != TestDimension || !b.CreatedAt.Equal(testTime) {
			e.t.Errorf("Banks: bank %s: got Embedder %q, Dimension %d, CreatedAt %v, want %q, %d, %v", b.ID, b.Embedder, b.Dimension, b.CreatedAt, TestEmbedder, TestDimension, testTime)
		}
	}
	checkIDs(e.t, "Banks", got, []string{"B", "a", "b", "b:x", "c"})
}

func testBankErrConflict(e *env) {
	first := &memory.Bank{ID: "alice", Name: "alice", Settings: memory.BankSettings{Mission: "first"}, CreatedAt: testTime}
	if err := e.s.CreateBank(e.ctx, first); err != nil {
		e.t.Fatalf("CreateBank: %v", err)
	}
	second := &memory.Bank{ID: "alice", Name: "alice", Settings: memory.BankSettings{Mission: "second"}, CreatedAt: hours(1)}
	wantCode(e.t, "CreateBank(alice) again", e.s.CreateBank(e.ctx, second), memory.ECONFLICT)
	if got := e.bank("alice").Settings.Mission; got != "first" {
		e.t.Errorf("Bank(alice).Settings.Mission after a refused create: got %q, want %q", got, "first")
	}
}

// Stores refuse bank ids that memory.ValidateBankName refuses.
func testBankErrInvalid(e *env) {
	for _, id := range []string{"", " ", "has space", "-leading", "semi;colon", "quote'", "slash/", strings.Repeat("x", 129)} {
		wantCode(e.t, "CreateBank("+strconv.Quote(id)+")", e.s.CreateBank(e.ctx, &memory.Bank{ID: id, Name: id, CreatedAt: testTime}), memory.EINVALID)
	}
	bs, err := e.s.Banks(e.ctx)
	if err != nil {
		e.t.Fatalf("Banks: %v", err)
	}
	if len(bs) != 0 {
		e.t.Errorf("Banks after refused creates: got %d banks, want none", len(bs))
	}
}

func testBankErrNotFound(e *env) {
	e.newBank("alice")
	_, err := e.s.Bank(e.ctx, "nobody")
	wantCode(e.t, "Bank(nobody)", err, memory.ENOTFOUND)
	wantCode(e.t, "DeleteBank(nobody)", e.s.DeleteBank(e.ctx, "nobody"), memory.ENOTFOUND)
	_, err = e.s.Bank(e.ctx, "Alice")
	wantCode(e.t, "Bank(Alice): ids are case-sensitive", err, memory.ENOTFOUND)
}

// Deleting a bank removes it and everything in it; a bank created again
// under the same id starts empty.
func testBankDelete(e *env) {
	e.newBank("a")
	e.newBank("b")
	w := NewTestBatch("a", "doc", "Melanie adopted a puppy named Biscuit")
	ent := memory.Entity{ID: memory.EntityID("Melanie"), Name: "Melanie", Type: memory.EntityPerson, Aliases: []string{"Mel"}}
	w.Entities = []memory.EntityUpsert{{Entity: ent, Mentions: 1, Episodes: 1}}
	w.Refs = []memory.EntityRef{{FactID: w.Facts[0].ID, EntityID: ent.ID}}
	e.writeNew(w)

	if err := e.s.DeleteBank(e.ctx, "a"); err != nil {
		e.t.Fatalf("DeleteBank(a): %v", err)
	}
	_, err := e.s.Bank(e.ctx, "a")
	wantCode(e.t, "Bank(a) after DeleteBank", err, memory.ENOTFOUND)
	wantCode(e.t, "DeleteBank(a) again", e.s.DeleteBank(e.ctx, "a"), memory.ENOTFOUND)
	_, err = e.s.Facts(e.ctx, "a", batchIDs(w))
	wantCode(e.t, "Facts on a deleted bank", err, memory.ENOTFOUND)
	bs, err := e.s.Banks(e.ctx)
	if err != nil {
		e.t.Fatalf("Banks: %v", err)
	}
	var ids []string
	for _, b := range bs {
		ids = append(ids, b.ID)
	}
	checkIDs(e.t, "Banks after DeleteBank(a)", ids, []string{"b"})

	if err := e.s.CreateBank(e.ctx, &memory.Bank{ID: "a", Name: "a", CreatedAt: testTime}); err != nil {
		e.t.Fatalf("CreateBank(a) after delete: %v", err)
	}
	if b := e.bank("a"); b.Embedder != "" || b.Dimension != 0 {
		e.t.Errorf("recreated Bank(a): got Embedder %q, Dimension %d, want none recorded", b.Embedder, b.Dimension)
	}
	if got := e.stats("a"); got != (memory.Stats{}) {
		e.t.Errorf("Stats of recreated bank a: got %+v, want zero", got)
	}
	if got := e.facts("a", batchIDs(w)...); len(got) != 0 {
		e.t.Errorf("Facts of recreated bank a: got %q, want none", factIDs(got))
	}
	e.noDocument("a", w.Document.Source, w.Document.ItemID)
	if got := e.searchText("a", 10, memory.Filter{}, "puppy"); len(got) != 0 {
		e.t.Errorf("SearchText(puppy) in recreated bank a: got %q, want none", hitIDs(got))
	}
	if got := e.searchVector("a", w.Facts[0].Embedding, 10, memory.Filter{}); len(got) != 0 {
		e.t.Errorf("SearchVector in recreated bank a: got %q, want none", hitIDs(got))
	}
	if got := e.entitiesByName("a", "melanie", "mel"); len(got) != 0 {
		e.t.Errorf("EntitiesByName in recreated bank a: got %q, want none", entityIDs(got))
	}
	if got := e.factsByEntity("a", ent.ID, 10); len(got) != 0 {
		e.t.Errorf("FactsByEntity in recreated bank a: got %q, want none", got)
	}
	// The old document is gone, so retaining it again is new, not a duplicate.
	res := e.write(NewTestBatch("a", "doc", "Melanie adopted a puppy named Biscuit"))
	if res.Duplicate || res.Replaced {
		e.t.Errorf("Write of the old document to recreated bank a: got Duplicate %v, Replaced %v, want a new document", res.Duplicate, res.Replaced)
	}
	if got := e.fact("a", w.Facts[0].ID).Seq; got != 1 {
		e.t.Errorf("Seq of the first fact of recreated bank a: got %d, want 1", got)
	}
}

func testBankSetEmbedder(e *env) {
	if err := e.s.CreateBank(e.ctx, &memory.Bank{ID: "a", Name: "a", CreatedAt: testTime}); err != nil {
		e.t.Fatalf("CreateBank: %v", err)
	}
	if b := e.bank("a"); b.Embedder != "" || b.Dimension != 0 {
		e.t.Errorf("new Bank(a): got Embedder %q, Dimension %d, want none recorded", b.Embedder, b.Dimension)
	}
	if err := e.s.SetBankEmbedder(e.ctx, "a", "hash-v1", 16); err != nil {
		e.t.Fatalf("SetBankEmbedder(hash-v1, 16): %v", err)
	}
	if err := e.s.SetBankEmbedder(e.ctx, "a", "hash-v1", 16); err != nil {
		e.t.Errorf("SetBankEmbedder(hash-v1, 16) again: got %v, want success", err)
	}
	wantCode(e.t, "SetBankEmbedder(other name)", e.s.SetBankEmbedder(e.ctx, "a", "hash-v2", 16), memory.ECONFLICT)
	wantCode(e.t, "SetBankEmbedder(other dimension)", e.s.SetBankEmbedder(e.ctx, "a", "hash-v1", 32), memory.ECONFLICT)
	wantCode(e.t, "SetBankEmbedder(empty name)", e.s.SetBankEmbedder(e.ctx, "a", "", 16), memory.EINVALID, memory.ECONFLICT)
	wantCode(e.t, "SetBankEmbedder(dimension 0)", e.s.SetBankEmbedder(e.ctx, "a", "hash-v1", 0), memory.EINVALID, memory.ECONFLICT)
	b := e.bank("a")
	if b.Embedder != "hash-v1" || b.Dimension != 16 {
		e.t.Errorf("Bank(a): got Embedder %q, Dimension %d, want hash-v1, 16", b.Embedder, b.Dimension)
	}
	wantCode(e.t, "SetBankEmbedder(unknown bank)", e.s.SetBankEmbedder(e.ctx, "nobody", "hash-v1", 16), memory.ENOTFOUND)

	// Banks are independent: another bank may use another embedder.
	if err := e.s.CreateBank(e.ctx, &memory.Bank{ID: "b", Name: "b", CreatedAt: testTime}); err != nil {
		e.t.Fatalf("CreateBank(b): %v", err)
	}
	if err := e.s.SetBankEmbedder(e.ctx, "b", "hash-v2", 32); err != nil {
		e.t.Errorf("SetBankEmbedder(b, hash-v2, 32): got %v, want success", err)
	}
}

// Every method that takes a bank id fails with ENOTFOUND on an unknown
// bank, even when asked about nothing, and creates nothing.
func testBankUnknown(e *env) {
	e.newBank("known")
	const bank = "unknown"
	ctx, s := e.ctx, e.s
	w := NewTestBatch(bank, "doc", "Melanie likes tea")
	ids := batchIDs(w)
	vec := TestVector("tea", TestDimension)
	calls := []struct {
		name string
		err  error
	}{
		{"Bank", errOf(s.Bank(ctx, bank))},
		{"DeleteBank", s.DeleteBank(ctx, bank)},
		{"SetBankEmbedder", s.SetBankEmbedder(ctx, bank, TestEmbedder, TestDimension)},
		{"Write", errOf(s.Write(ctx, w))},
		{"DocumentByItem", errOf(s.DocumentByItem(ctx, bank, memory.SourceNote, "doc"))},
		{"Chunks", errOf(s.Chunks(ctx, bank, "doc"))},
		{"Facts", errOf(s.Facts(ctx, bank, ids))},
		{"Facts(none)", errOf(s.Facts(ctx, bank, nil))},
		{"SearchVector", errOf(s.SearchVector(ctx, bank, vec, 10, memory.Filter{}))},
		{"SearchText", errOf(s.SearchText(ctx, bank, []string{"tea"}, 10, memory.Filter{}))},
		{"Links", errOf(s.Links(ctx, bank, ids))},
		{"EntitiesByName", errOf(s.EntitiesByName(ctx, bank, []string{"melanie"}))},
		{"EntityRefs", errOf(s.EntityRefs(ctx, bank, ids))},
		{"FactsByEntities", errOf(s.FactsByEntities(ctx, bank, []string{memory.EntityID("Melanie")}, 10))},
		{"Entities", errOf(s.Entities(ctx, bank, []string{memory.EntityID("Melanie")}))},
		{"RecordAccess", s.RecordAccess(ctx, bank, ids, testTime)},
		{"Stats", errOf(s.Stats(ctx, bank))},
	}
	for _, c := range calls {
		wantCode(e.t, c.name+"(unknown bank)", c.err, memory.ENOTFOUND)
	}
	bs, err := s.Banks(ctx)
	if err != nil {
		e.t.Fatalf("Banks: %v", err)
	}
	if len(bs) != 1 || bs[0].ID != "known" {
		var got []string
		for _, b := range bs {
			got = append(got, b.ID)
		}
		e.t.Errorf("Banks after calls on an unknown bank: got %q, want [known]", got)
	}
	// The batch was not written anywhere else either.
	if got := e.facts("known", ids...); len(got) != 0 {
		e.t.Errorf("Facts(known) after a write to an unknown bank: got %q, want none", factIDs(got))
	}
}

// errOf returns the error of a call's results.
func errOf[T any](_ T, err error) error { return err }
