package bench

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Defaults of a synthetic benchmark.
const (
	DefaultSyntheticBank    = "synthetic"
	DefaultSyntheticFacts   = 10_000
	DefaultSyntheticQueries = 200
	// SyntheticLimit is the results asked of each synthetic recall.
	SyntheticLimit = 10
	// SyntheticDocSize is the messages per generated chat document.
	SyntheticDocSize = 20
	// SyntheticSource is the Source of every generated document.
	SyntheticSource = "synthetic"
)

// synCastSize is how many people a generated bank talks about: about as
// many as one person knows, so names repeat across a large bank.
const synCastSize = 300

// synSpan is the time a generated bank's conversations spread over, as
// long as the bank is small enough for it.
const synSpan = 2 * 365 * 24 * time.Hour

// synEpoch is when the first generated conversation starts.
var synEpoch = time.Date(2021, time.January, 4, 9, 0, 0, 0, time.UTC)

// PCG streams: the cast, the documents and the queries each draw from their
// own stream of the seed, so the queries need not replay the documents.
const (
	synCastStream  = 0x6d6e656d6f_01
	synDocStream   = 0x6d6e656d6f_02
	synQueryStream = 0x6d6e656d6f_03
)

// GenerateSynthetic returns a generated bank of n facts (n messages, one
// sentence each) for a fixed seed: chat documents of SyntheticDocSize
// messages (the last one may be shorter) between two people, with
// speakers, strictly increasing times, and text naming people, places,
// organisations and dates ("Alice Kowalski moved to Lisbon in March 2021
// to work at Northwind"), mixed with small talk. The same (n, seed) always
// gives the same requests. BankID is left empty for the caller to set;
// ItemIDs are "synthetic/<seed>/<doc>" and message IDs "<item>/m<j>". It
// returns nil when n < 1.
func GenerateSynthetic(n int, seed int64) []memory.RetainRequest {
	if n < 1 {
		return nil
	}
	g := newSynGen(seed, synDocStream)
	docs := (n + SyntheticDocSize - 1) / SyntheticDocSize
	// Mean gap between documents: the span shared out, never under 10 min.
	meanGap := max(synSpan/time.Duration(docs)-time.Hour, 10*time.Minute)
	reqs := make([]memory.RetainRequest, 0, docs)
	at := synEpoch
	for d := range docs {
		size := min(SyntheticDocSize, n-d*SyntheticDocSize)
		a, b := g.person(), g.person()
		for b == a {
			b = g.person()
		}
		item := "synthetic/" + strconv.FormatInt(seed, 10) + "/" + strconv.Itoa(d)
		req := memory.RetainRequest{Source: SyntheticSource, ItemID: item, At: at}
		speaker, other := a, b
		t := at
		for j := range size {
			if j > 0 && g.r.IntN(10) < 7 {
				speaker, other = other, speaker
			}
			req.Messages = append(req.Messages, memory.Message{
				ID:      item + "/m" + strconv.Itoa(j+1),
				Speaker: speaker.first,
				Text:    g.sentence(speaker, other, t),
				Time:    t,
			})
			t = t.Add(time.Duration(1+g.r.IntN(5)) * time.Minute)
		}
		reqs = append(reqs, req)
		at = t.Add(time.Duration(g.r.Int64N(int64(2*meanGap/time.Minute))) * time.Minute)
	}
	return reqs
}

// SyntheticQueries returns n questions about the people, places and
// organisations of the bank GenerateSynthetic makes for the same seed
// ("Where did Alice Kowalski move to?"). The same (n, seed) always gives
// the same questions; it returns nil when n < 1.
func SyntheticQueries(n int, seed int64) []string {
	if n < 1 {
		return nil
	}
	g := newSynGen(seed, synQueryStream)
	out := make([]string, n)
	for i := range out {
		out[i] = g.question()
	}
	return out
}

// SyntheticOptions tunes [RunSynthetic]. The zero value is ready to use.
type SyntheticOptions struct {
	// Bank is the bank to create and fill; "" means DefaultSyntheticBank.
	Bank string
	// Facts is the size of the generated bank; 0 means
	// DefaultSyntheticFacts.
	Facts int
	// Seed seeds the generator; every value, 0 included, is a seed.
	Seed int64
	// Queries is the number of recalls; 0 means DefaultSyntheticQueries.
	Queries int
	// Progress, when set, is called after each step with the steps done
	// and the total: one step per retained document and per recall.
	Progress func(done, total int)
	// OneByOne retains the documents one Retain call at a time even when
	// the engine is a BulkRetainer.
	OneByOne bool
	// BeforeRecalls, when set, is called once between the ingest and the
	// timed recalls (to start a profile, say).
	BeforeRecalls func()
	// RestWait, when positive, is how long the process idles after the
	// recalls before the report reads its RSS again (RestRSSMB): what a
	// process serving the bank holds between requests, once its memory
	// limit and the store's idle release have caught up.
	RestWait time.Duration
}

// IndexWaiter is an Engine whose store builds search indexes in the
// background (*mnemo.Engine is one): RunSynthetic waits for the bank's
// index before it times recalls, and reports how long that took.
type IndexWaiter interface {
	WaitIndexed(ctx context.Context, bank string) error
}

// VectorIndexChecker is an Engine that can measure its approximate
// vector index against exact search (*mnemo.Engine is one): the report
// then gives the index's recall@10 for the queries. ok false means the
// search is exact and nothing was measured.
type VectorIndexChecker interface {
	VectorIndexRecall(ctx context.Context, bank string, queries []string, k int) (recall float64, ok bool, err error)
}

// syntheticChunk is how many documents RunSynthetic hands a BulkRetainer
// per call.
const syntheticChunk = 1024

// BulkRetainer is an Engine that can retain many items in one call, each
// with Retain's guarantees (*mnemo.Engine is one). RunSynthetic uses it
// unless told not to.
type BulkRetainer interface {
	RetainMany(ctx context.Context, reqs []memory.RetainRequest) ([]*memory.RetainResult, []error)
}

// SyntheticReport is the outcome of [RunSynthetic]. Its JSON is
// {"facts", "ingest_facts_per_s", "recall_ms": {"p50", "p95", "p99"},
// "rss_mb", "peak_rss_mb"}.
type SyntheticReport struct {
	// Facts is the facts the engine reported retaining.
	Facts int `json:"facts"`
	// IngestFactsPerSec is Facts over the wall time of all retain calls.
	IngestFactsPerSec float64 `json:"ingest_facts_per_s"`
	// RecallMS is the latency of one recall call.
	RecallMS Latency `json:"recall_ms"`
	// RSSMB and PeakRSSMB are the process's resident set size and its peak
	// (VmRSS, VmHWM) in MiB after the run; without /proc both are the
	// memory the Go runtime obtained from the OS.
	RSSMB     float64 `json:"rss_mb"`
	PeakRSSMB float64 `json:"peak_rss_mb"`
	// RestRSSMB is the RSS after SyntheticOptions.RestWait of idling;
	// 0 when not measured.
	RestRSSMB float64 `json:"rest_rss_mb,omitempty"`
	restWait  time.Duration

	// Bulk says the documents went through BulkRetainer.RetainMany.
	Bulk bool `json:"bulk"`
	// IndexWaitMS is how long the store took, after the ingest, to load
	// the bank's search index and link its graph (0 when the store builds
	// nothing in the background).
	IndexWaitMS float64 `json:"index_wait_ms,omitempty"`
	// ANNRecall10 is the mean share of the exact 10 nearest facts the
	// store's vector search found for the queries; 0 when not measured.
	ANNRecall10 float64 `json:"ann_recall_at_10,omitempty"`
	// Memory is where the RSS goes, read with it after the run.
	Memory Memory `json:"memory"`

	Documents  int           `json:"-"` // documents retained
	Recalls    int           `json:"-"` // recalls run
	IngestTime time.Duration `json:"-"` // wall time of all retain calls
}

// RunSynthetic creates a bank, retains GenerateSynthetic(opts.Facts,
// opts.Seed) into it, runs opts.Queries recalls of SyntheticQueries with
// Limit SyntheticLimit and, as "now", the time of the last document, then
// reads the process's memory use. The bank must not exist yet. It stops at
// the first error of the engine or of ctx.
func RunSynthetic(ctx context.Context, eng Engine, opts SyntheticOptions) (*SyntheticReport, error) {
	name := cmp.Or(opts.Bank, DefaultSyntheticBank)
	facts := cmp.Or(opts.Facts, DefaultSyntheticFacts)
	nq := cmp.Or(opts.Queries, DefaultSyntheticQueries)
	reqs := GenerateSynthetic(facts, opts.Seed)
	queries := SyntheticQueries(nq, opts.Seed)
	total, done := len(reqs)+len(queries), 0
	step := func() {
		done++
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	}

	bank, err := eng.CreateBank(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("create bank %s: %w", name, err)
	}
	r := &SyntheticReport{}
	var now time.Time
	for i := range reqs {
		reqs[i].BankID = bank.ID
		now = reqs[i].At
	}
	if bulk, ok := eng.(BulkRetainer); ok && !opts.OneByOne {
		// The way a real import runs: items prepared in parallel, written
		// in order, many per commit.
		r.Bulk = true
		for start := 0; start < len(reqs); start += syntheticChunk {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			chunk := reqs[start:min(start+syntheticChunk, len(reqs))]
			t := time.Now()
			results, errs := bulk.RetainMany(ctx, chunk)
			r.IngestTime += time.Since(t)
			for i, err := range errs {
				if err != nil {
					return nil, fmt.Errorf("retain %s: %w", chunk[i].ItemID, err)
				}
				r.Documents++
				r.Facts += results[i].Facts
				step()
			}
		}
	} else {
		for _, req := range reqs {
			facts, took, err := retainTimed(ctx, eng, req)
			r.IngestTime += took
			if err != nil {
				return nil, err
			}
			r.Documents++
			r.Facts += facts
			step()
		}
	}
	if w, ok := eng.(IndexWaiter); ok {
		t := time.Now()
		if err := w.WaitIndexed(ctx, bank.ID); err != nil {
			return nil, fmt.Errorf("wait for the search index: %w", err)
		}
		r.IndexWaitMS = millis(time.Since(t))
	}
	if c, ok := eng.(VectorIndexChecker); ok {
		if r.ANNRecall10, _, err = c.VectorIndexRecall(ctx, bank.ID, queries, 10); err != nil {
			return nil, err
		}
	}
	if opts.BeforeRecalls != nil {
		opts.BeforeRecalls()
	}
	latencies := make([]time.Duration, 0, len(queries))
	for _, q := range queries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		start := time.Now()
		_, err := eng.Recall(ctx, memory.Query{BankID: bank.ID, Text: q, Limit: SyntheticLimit, Now: now})
		latencies = append(latencies, time.Since(start))
		if err != nil {
			return nil, fmt.Errorf("recall %q: %w", q, err)
		}
		r.Recalls++
		step()
	}
	r.IngestFactsPerSec = perSecond(r.Facts, r.IngestTime)
	r.RecallMS = Percentiles(latencies)
	r.RSSMB, r.PeakRSSMB = memoryUse()
	r.Memory = ReadMemory()
	if opts.RestWait > 0 {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(opts.RestWait):
		}
		r.RestRSSMB, _ = memoryUse()
		r.restWait = opts.RestWait
	}
	return r, nil
}

// annRecall returns the mean recall@10 of s.SearchVector against

// WriteText writes r as human-readable lines.
func (r *SyntheticReport) WriteText(w io.Writer) error {
	how := "one Retain per document"
	if r.Bulk {
		how = "bulk: RetainMany"
	}
	_, err := fmt.Fprintf(w, "ingest: %d facts from %d documents in %s (%.1f facts/s, %s)\n"+
		"recall: %d queries, p50 %.2f ms, p95 %.2f ms, p99 %.2f ms\n"+
		"memory: rss %.1f MB",
		r.Facts, r.Documents, r.IngestTime.Round(time.Millisecond), r.IngestFactsPerSec, how,
		r.Recalls, r.RecallMS.P50, r.RecallMS.P95, r.RecallMS.P99,
		r.RSSMB)
	if err == nil && r.RestRSSMB > 0 {
		_, err = fmt.Fprintf(w, " (%.1f MB at rest, %s later)", r.RestRSSMB, r.restWait)
	}
	if err == nil {
		_, err = fmt.Fprintf(w, ", peak %.1f MB; ", r.PeakRSSMB)
	}
	if err == nil {
		err = r.Memory.WriteText(w)
	}
	if err == nil && (r.IndexWaitMS > 0 || r.ANNRecall10 > 0) {
		_, err = fmt.Fprintf(w, "index: ready %.0f ms after the ingest, vector recall@10 %.3f against exact\n", r.IndexWaitMS, r.ANNRecall10)
	}
	return err
}

// synPerson is one member of a generated bank's cast.
type synPerson struct {
	first, last string
	city, org   string // where they live and work
}

func (p synPerson) name() string { return p.first + " " + p.last }

// synGen draws sentences and questions about a cast.
type synGen struct {
	r    *rand.Rand
	cast []synPerson
}

// newSynGen returns a generator on the given stream of seed, with the
// seed's cast (the same for every stream).
func newSynGen(seed int64, stream uint64) *synGen {
	cr := rand.New(rand.NewPCG(uint64(seed), synCastStream))
	cast := make([]synPerson, 0, synCastSize)
	seen := make(map[string]bool, synCastSize)
	for len(cast) < synCastSize {
		p := synPerson{first: pick(cr, synFirstNames), last: pick(cr, synLastNames)}
		if seen[p.name()] {
			continue
		}
		seen[p.name()] = true
		p.city, p.org = pick(cr, synCities), pick(cr, synOrgs)
		cast = append(cast, p)
	}
	return &synGen{r: rand.New(rand.NewPCG(uint64(seed), stream)), cast: cast}
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func (g *synGen) person() synPerson { return pick(g.r, g.cast) }

// monthYear returns "March 2021": a month in the two years up to at.
func (g *synGen) monthYear(at time.Time) string {
	d := at.AddDate(0, -g.r.IntN(24), 0)
	return d.Month().String() + " " + strconv.Itoa(d.Year())
}

// date returns "12 May 2022": a day in the two years up to at.
func (g *synGen) date(at time.Time) string {
	return at.AddDate(0, 0, -g.r.IntN(730)).Format("2 January 2006")
}

// dateAfter returns "3 March 2023": a day in the year after at.
func (g *synGen) dateAfter(at time.Time) string {
	return at.AddDate(0, 0, 1+g.r.IntN(365)).Format("2 January 2006")
}

// sentence returns one chat message of speaker to other at time at.
func (g *synGen) sentence(speaker, other synPerson, at time.Time) string {
	if g.r.IntN(100) < 15 {
		return pick(g.r, synFillers)
	}
	p, q := g.person(), g.person()
	if g.r.IntN(4) == 0 {
		p = other // people talk about each other too
	}
	city, org := pick(g.r, synCities), pick(g.r, synOrgs)
	switch g.r.IntN(24) {
	case 0:
		return fmt.Sprintf("%s moved to %s in %s to work at %s.", p.name(), city, g.monthYear(at), org)
	case 1:
		return fmt.Sprintf("%s said they love %s near %s %s.", p.first, pick(g.r, synActivities), city, pick(g.r, synPast))
	case 2:
		return fmt.Sprintf("I met %s at the %s office in %s on %s.", p.name(), org, city, g.date(at))
	case 3:
		return fmt.Sprintf("%s started a new job as a %s at %s in %s.", p.name(), pick(g.r, synRoles), org, g.monthYear(at))
	case 4:
		return fmt.Sprintf("%s bought a %s for %s's birthday %s.", p.first, pick(g.r, synObjects), q.first, pick(g.r, synPast))
	case 5:
		return fmt.Sprintf("We should visit %s with %s %s.", city, p.first, pick(g.r, synFuture))
	case 6:
		return fmt.Sprintf("%s is allergic to %s, so no %s for them.", p.name(), pick(g.r, synFoods), pick(g.r, synDishes))
	case 7:
		return fmt.Sprintf("%s adopted a %s named %s in %s.", p.first, pick(g.r, synPets), pick(g.r, synPetNames), g.monthYear(at))
	case 8:
		return fmt.Sprintf("%s and %s went %s in %s %s.", p.first, q.first, pick(g.r, synActivities), city, pick(g.r, synPast))
	case 9:
		return fmt.Sprintf("%s opened a new office in %s in %s.", org, city, g.monthYear(at))
	case 10:
		return fmt.Sprintf("My friend %s is studying %s at the University of %s.", p.first, pick(g.r, synSubjects), city)
	case 11:
		return fmt.Sprintf("%s is learning to play the %s and practises every evening.", p.name(), pick(g.r, synInstruments))
	case 12:
		return fmt.Sprintf("%s cooked %s for dinner %s and it was amazing.", p.first, pick(g.r, synDishes), pick(g.r, synPast))
	case 13:
		return fmt.Sprintf("%s ran the %s marathon in %s in %d hours %d minutes.", p.name(), city, g.monthYear(at), 3+g.r.IntN(3), g.r.IntN(60))
	case 14:
		return fmt.Sprintf("%s told me %s is leaving %s to open a cafe in %s.", p.first, q.name(), org, city)
	case 15:
		return fmt.Sprintf("%s prefers %s over %s.", p.first, pick(g.r, synDrinks), pick(g.r, synDrinks))
	case 16:
		return fmt.Sprintf("Remind me to call %s about the %s %s.", p.first, pick(g.r, synObjects), pick(g.r, synFuture))
	case 17:
		return fmt.Sprintf("%s lost their %s at %s in %s %s.", p.first, pick(g.r, synObjects), pick(g.r, synVenues), city, pick(g.r, synPast))
	case 18:
		return fmt.Sprintf("%s got promoted to %s at %s on %s.", p.name(), pick(g.r, synRoles), org, g.date(at))
	case 19:
		return fmt.Sprintf("The %s in %s is on %s and %s already has tickets.", pick(g.r, synEvents), city, g.dateAfter(at), p.first)
	case 20:
		return fmt.Sprintf("I feel %s about the trip to %s with %s %s.", pick(g.r, synFeelings), city, p.first, pick(g.r, synFuture))
	case 21:
		return fmt.Sprintf("%s recommended %s in %s for %s.", p.first, pick(g.r, synVenues), city, pick(g.r, synActivities))
	case 22:
		return fmt.Sprintf("%s lives in %s and works at %s.", p.name(), p.city, p.org)
	default:
		return fmt.Sprintf("%s's %s %s is afraid of the %s.", p.first, pick(g.r, synPets), pick(g.r, synPetNames), pick(g.r, synObjects))
	}
}

// question returns one question about the cast and the vocabulary.
func (g *synGen) question() string {
	p, q := g.person(), g.person()
	city, org := pick(g.r, synCities), pick(g.r, synOrgs)
	switch g.r.IntN(16) {
	case 0:
		return fmt.Sprintf("Where did %s move to?", p.name())
	case 1:
		return fmt.Sprintf("Who works at %s?", org)
	case 2:
		return fmt.Sprintf("What does %s like doing near %s?", p.first, city)
	case 3:
		return fmt.Sprintf("When did %s visit %s?", p.name(), city)
	case 4:
		return fmt.Sprintf("What did %s buy for %s's birthday?", p.first, q.first)
	case 5:
		return fmt.Sprintf("What pet did %s adopt?", p.first)
	case 6:
		return fmt.Sprintf("What is %s allergic to?", p.name())
	case 7:
		return fmt.Sprintf("Who is learning to play the %s?", pick(g.r, synInstruments))
	case 8:
		return fmt.Sprintf("What is %s's job at %s?", p.name(), p.org)
	case 9:
		return fmt.Sprintf("Who ran the %s marathon?", city)
	case 10:
		return fmt.Sprintf("What did %s cook for dinner?", p.first)
	case 11:
		return fmt.Sprintf("What is %s studying?", p.first)
	case 12:
		return fmt.Sprintf("Who went %s in %s?", pick(g.r, synActivities), city)
	case 13:
		return fmt.Sprintf("When is the %s in %s?", pick(g.r, synEvents), city)
	case 14:
		return fmt.Sprintf("Where does %s live?", p.name())
	default:
		return fmt.Sprintf("When did %s open an office in %s?", org, city)
	}
}
