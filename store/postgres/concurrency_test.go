package postgres_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/postgres"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// The shape of the two-process test: each process runs writers goroutines,
// each writing docs documents into bank "shared".
const (
	procWriters = 4
	procDocs    = 15
)

var (
	shared = memory.EntityID("Melanie")
	other  = memory.EntityID("Lyon")
)

// TestStore_TwoProcesses runs two processes (this test binary again, as
// workers) that write to one bank at once, each through its own pool,
// while this process records accesses. Every counter the writes add to —
// entity mentions and episodes, co-occurrences, reinforcements, access
// counts — adds up, and every fact has a Seq of its own.
func TestStore_TwoProcesses(t *testing.T) {
	if os.Getenv("MNEMO_PG_WORKER") != "" {
		t.Skip("a worker does not start workers")
	}
	u := schemaURL(t)
	s := openStore(t, u)
	ctx := context.Background()
	if err := s.CreateBank(ctx, &memory.Bank{ID: "shared"}); err != nil {
		t.Fatal(err)
	}
	seed := storetest.NewTestBatch("shared", "seed", "Melanie lives in Lyon")
	if _, err := s.Write(ctx, seed); err != nil {
		t.Fatal(err)
	}
	seedFact := seed.Facts[0].ID

	var procs []*exec.Cmd
	var outs []*strings.Builder
	for p := range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestStore_Worker$", "-test.count=1")
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.Env = append(os.Environ(), "MNEMO_PG_WORKER="+strconv.Itoa(p), "MNEMO_PG_WORKER_URL="+u, "MNEMO_PG_WORKER_FACT="+seedFact)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs, outs = append(procs, cmd), append(outs, &out)
	}
	// Meanwhile: accesses recorded by this process.
	const accesses = 200
	for range accesses {
		if err := s.RecordAccess(ctx, "shared", []string{seedFact}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	for i, cmd := range procs {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("worker %d: %v\n%s", i, err, outs[i])
		}
		if !strings.Contains(outs[i].String(), "PASS") {
			t.Fatalf("worker %d ran no test:\n%s", i, outs[i])
		}
	}

	writes := 2 * procWriters * procDocs
	f := mustFacts(t, s, "shared", seedFact)[0]
	if f.ReinforcementCount != writes {
		t.Errorf("reinforcements of the seed fact: got %d, want %d", f.ReinforcementCount, writes)
	}
	if f.AccessCount != accesses+writes {
		t.Errorf("accesses of the seed fact: got %d, want %d", f.AccessCount, accesses+writes)
	}
	ents, err := s.Entities(ctx, "shared", []string{shared, other})
	if err != nil || len(ents) != 2 {
		t.Fatalf("Entities: %v, %v", ents, err)
	}
	for _, e := range ents {
		if e.MentionCount != 2*writes || e.EpisodeCount != writes {
			t.Errorf("entity %s: got %d mentions, %d episodes, want %d, %d", e.Name, e.MentionCount, e.EpisodeCount, 2*writes, writes)
		}
	}
	var cooc int
	if err := s.Pool().QueryRow(ctx, `SELECT count FROM cooccurrences WHERE bank_id = 'shared'`).Scan(&cooc); err != nil {
		t.Fatal(err)
	}
	if cooc != writes {
		t.Errorf("co-occurrence count: got %d, want %d", cooc, writes)
	}
	st, err := s.Stats(ctx, "shared")
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + 2*writes; st.Facts != want || st.Documents != 1+writes || st.Entities != 2 {
		t.Errorf("Stats: got %+v, want %d facts, %d documents, 2 entities", *st, want, 1+writes)
	}
	var distinct, maxSeq int
	if err := s.Pool().QueryRow(ctx, `SELECT count(DISTINCT seq), max(seq) FROM facts WHERE bank_id = 'shared'`).Scan(&distinct, &maxSeq); err != nil {
		t.Fatal(err)
	}
	if distinct != st.Facts || maxSeq != st.Facts {
		t.Errorf("Seq: got %d distinct, max %d, want 1..%d", distinct, maxSeq, st.Facts)
	}
	checkBankStats(t, s, "shared")
}

// checkBankStats checks the bank's BM25 statistics (fact count, words,
// document frequencies) against a count of its facts.
func checkBankStats(t *testing.T, s *postgres.Store, bank string) {
	t.Helper()
	ctx := context.Background()
	var count, words, realCount, realWords int64
	if err := s.Pool().QueryRow(ctx, `SELECT fact_count, fact_words, (SELECT count(*) FROM facts WHERE bank_id = $1),
		(SELECT coalesce(sum(words), 0) FROM facts WHERE bank_id = $1) FROM banks WHERE id = $1`, bank).Scan(&count, &words, &realCount, &realWords); err != nil {
		t.Fatal(err)
	}
	if count != realCount || words != realWords {
		t.Errorf("bank statistics: got %d facts, %d words, want %d, %d", count, words, realCount, realWords)
	}
	var wrong int
	if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM (
			(SELECT lexeme, df FROM lexemes WHERE bank_id = $1 AND df <> 0
			EXCEPT SELECT u.lexeme, count(*) FROM facts f, unnest(f.tsv) u WHERE f.bank_id = $1 GROUP BY 1)
			UNION ALL
			(SELECT u.lexeme, count(*) FROM facts f, unnest(f.tsv) u WHERE f.bank_id = $1 GROUP BY 1
			EXCEPT SELECT lexeme, df FROM lexemes WHERE bank_id = $1)) x`, bank).Scan(&wrong); err != nil {
		t.Fatal(err)
	}
	if wrong != 0 {
		t.Errorf("document frequencies: %d lexemes counted wrong", wrong)
	}
}

// WriteMany sums the counters of its batches and writes them once; a
// document replaced within the same call, a failed batch and entities
// upserted by several batches all come out as Write one by one would.
func TestStore_WriteManyCounters(t *testing.T) {
	s := openStore(t, schemaURL(t))
	ctx := context.Background()
	if err := s.CreateBank(ctx, &memory.Bank{ID: "b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, storetest.NewTestBatch("b", "old", "Melanie plays the cello", "the cello is old")); err != nil {
		t.Fatal(err)
	}
	mel := memory.Entity{ID: shared, Name: "Melanie", Type: memory.EntityPerson}
	batch := func(doc string, texts ...string) *memory.WriteBatch {
		w := storetest.NewTestBatch("b", doc, texts...)
		w.Entities = []memory.EntityUpsert{{Entity: mel, Mentions: 1, Episodes: 1}}
		w.Cooccurrences = []memory.Cooccurrence{{EntityA: shared, EntityB: other, Count: 2}}
		return w
	}
	replaced := batch("d1", "Melanie sings jazz", "jazz in Lyon")
	replaced.Document.ContentHash = "changed"
	bad := batch("bad", "never stored")
	bad.Reinforce = []string{"missing"}
	outs := s.WriteMany(ctx, []*memory.WriteBatch{
		batch("d1", "Melanie likes jazz", "jazz and cello"),
		batch("d2", "Melanie visits Lyon"),
		replaced, // replaces d1, written just before in this call
		bad,
		batch("old", "Melanie sold the cello"), // replaces a document stored before
	})
	for i, o := range outs {
		if (o.Err != nil) != (i == 3) {
			t.Errorf("batch %d: got %v", i, o.Err)
		}
	}
	checkBankStats(t, s, "b")
	ents, err := s.Entities(ctx, "b", []string{shared})
	if err != nil || len(ents) != 1 || ents[0].MentionCount != 4 || ents[0].EpisodeCount != 4 {
		t.Errorf("entity after WriteMany: got %+v, %v, want 4 mentions and episodes", ents, err)
	}
	var cooc int
	if err := s.Pool().QueryRow(ctx, `SELECT count FROM cooccurrences WHERE bank_id = 'b'`).Scan(&cooc); err != nil || cooc != 8 {
		t.Errorf("co-occurrence after WriteMany: got %d, %v, want 8", cooc, err)
	}
	hits, err := s.SearchText(ctx, "b", []string{"jazz"}, 10, memory.Filter{})
	if err != nil || len(hits) != 2 {
		t.Errorf("SearchText(jazz): got %v, %v, want the 2 facts of d1's last version", hits, err)
	}
}

// TestStore_Worker is one process of TestStore_TwoProcesses.
func TestStore_Worker(t *testing.T) {
	p := os.Getenv("MNEMO_PG_WORKER")
	if p == "" {
		t.Skip("run by TestStore_TwoProcesses")
	}
	s, err := postgres.Open(context.Background(), os.Getenv("MNEMO_PG_WORKER_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	seedFact := os.Getenv("MNEMO_PG_WORKER_FACT")
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := range procWriters {
		wg.Go(func() {
			for d := range procDocs {
				doc := fmt.Sprintf("p%s-w%d-d%d", p, g, d)
				w := storetest.NewTestBatch("shared", doc, "Melanie visited Lyon "+doc, "Melanie left Lyon "+doc)
				w.Entities = []memory.EntityUpsert{
					{Entity: memory.Entity{ID: shared, Name: "Melanie", Type: memory.EntityPerson}, Mentions: 2, Episodes: 1},
					{Entity: memory.Entity{ID: other, Name: "Lyon", Type: memory.EntityPlace, Aliases: []string{"Lyon " + doc}}, Mentions: 2, Episodes: 1},
				}
				w.Refs = []memory.EntityRef{{FactID: w.Facts[0].ID, EntityID: shared}, {FactID: w.Facts[0].ID, EntityID: other}}
				w.Cooccurrences = []memory.Cooccurrence{{EntityA: shared, EntityB: other, Count: 1}}
				w.Reinforce = []string{seedFact}
				if _, err := s.Write(ctx, w); err != nil {
					t.Errorf("Write %s: %v", doc, err)
					return
				}
				if err := s.RecordAccess(ctx, "shared", []string{seedFact}, time.Now()); err != nil {
					t.Errorf("RecordAccess: %v", err)
					return
				}
				if _, err := s.SearchText(ctx, "shared", []string{"Melanie", "Lyon"}, 10, memory.Filter{}); err != nil {
					t.Errorf("SearchText: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func mustFacts(t *testing.T, s *postgres.Store, bank string, ids ...string) []*memory.Fact {
	t.Helper()
	fs, err := s.Facts(context.Background(), bank, ids)
	if err != nil || len(fs) != len(ids) {
		t.Fatalf("Facts(%q): %v, %v", ids, fs, err)
	}
	return fs
}

// With its HNSW index a bank's vector search is approximate but close to
// exact, honours filters, and scores with the exact cosine; the planner
// uses the index.
func TestStore_HNSW(t *testing.T) {
	s := openStore(t, schemaURL(t))
	s.HNSWMinFacts = -1 // built by hand below
	ctx := context.Background()
	const n, dim = 3000, 32
	if err := s.CreateBank(ctx, &memory.Bank{ID: "v"}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	vecs := map[string][]float32{}
	archived := map[string]bool{}
	for start := 0; start < n; start += 500 {
		var texts []string
		for i := start; i < start+500; i++ {
			texts = append(texts, fmt.Sprintf("fact %d", i))
		}
		w := storetest.NewTestBatch("v", fmt.Sprintf("d%d", start), texts...)
		for i, f := range w.Facts {
			f.Embedding = unit(rng, dim)
			vecs[f.ID] = f.Embedding
			if (start+i)%4 == 0 {
				f.Status = memory.StatusArchived
				archived[f.ID] = true
			}
		}
		if _, err := s.Write(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	exact := func(q []float32) []string {
		type hit struct {
			id string
			sc float64
		}
		var hs []hit
		for id, v := range vecs {
			if !archived[id] {
				hs = append(hs, hit{id, dot(q, v)})
			}
		}
		slices.SortFunc(hs, func(a, b hit) int { return -cmpF(a.sc, b.sc) })
		var ids []string
		for _, h := range hs[:10] {
			ids = append(ids, h.id)
		}
		return ids
	}
	if err := s.BuildIndex(ctx, "v"); err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	rows, err := s.Pool().Query(ctx, `EXPLAIN SELECT id FROM facts f WHERE f.bank_id = 'v' ORDER BY (f.embedding::vector(32)) <=> $1::vector(32) LIMIT 10`, "["+strings.TrimSuffix(strings.Repeat("0.1,", dim), ",")+"]")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var line string
		rows.Scan(&line)
		plan.WriteString(line + "\n")
	}
	rows.Close()
	if !strings.Contains(plan.String(), "facts_hnsw_") {
		t.Errorf("the planner does not use the bank's HNSW index:\n%s", plan.String())
	}
	found, total := 0, 0
	for range 30 {
		q := unit(rng, dim)
		hits, err := s.SearchVector(ctx, "v", q, 10, memory.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		want := exact(q)
		for i, h := range hits {
			if archived[h.ID] {
				t.Errorf("hit %s is archived", h.ID)
			}
			if d := math.Abs(h.Score - dot(q, vecs[h.ID])); d > 1e-5 {
				t.Errorf("hit %s: score %g, cosine %g", h.ID, h.Score, dot(q, vecs[h.ID]))
			}
			if i > 0 && h.Score > hits[i-1].Score {
				t.Errorf("hits not best first")
			}
			if slices.Contains(want, h.ID) {
				found++
			}
		}
		total += len(want)
	}
	if r := float64(found) / float64(total); r < 0.95 {
		t.Errorf("recall@10 with the HNSW index: got %.3f, want ≥ 0.95", r)
	}
}

func unit(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	var n float64
	for i := range v {
		v[i] = float32(rng.NormFloat64())
		n += float64(v[i]) * float64(v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
