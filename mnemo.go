// Package mnemo is long-term memory for AI agents: the façade library
// users import. Open an Engine, Retain what the agent sees and hears,
// Recall what matters for a question.
//
//	eng, err := mnemo.Open(ctx, mnemo.Config{DB: "memory.db"})
//	...
//	eng.Retain(ctx, memory.RetainRequest{BankID: "default", Text: "Alice moved to Lisbon in May."})
//	rec, err := eng.Recall(ctx, memory.Query{BankID: "default", Text: "Where does Alice live?"})
//
// Every adapter (CLI, HTTP, MCP) is a thin layer over Engine; none holds
// logic of its own.
package mnemo

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
	"github.com/mnemo-ai/mnemo/provider/hashembed"
	"github.com/mnemo-ai/mnemo/recall"
	"github.com/mnemo-ai/mnemo/retain"
	"github.com/mnemo-ai/mnemo/store/postgres"
	"github.com/mnemo-ai/mnemo/store/sqlite"
)

// DefaultAccessFlush is how often recorded accesses are written back.
const DefaultAccessFlush = time.Second

// Config configures an Engine. The zero value is not usable: DB or Store
// is required.
type Config struct {
	// DB is the path of the SQLite database file (created if missing), or
	// a postgres:// (postgresql://) URL of a PostgreSQL database with
	// pgvector (store/postgres).
	DB string
	// Store, when set, is used instead of opening DB. The engine closes it.
	Store memory.Store
	// Embedder embeds facts and queries; nil means the built-in hashing
	// embedder (offline, deterministic).
	Embedder memory.Embedder
	// LLM, when set, turns on the LLM write path: extraction of rewritten
	// atomic facts with entities and relations, entity resolution and
	// conflict resolution (DESIGN §4). Nil means the heuristic extractor
	// (no network, no key). The engine wraps it in Guard.
	LLM memory.LLM
	// Reranker, when set, reorders recall's best results (wrapped in Guard).
	Reranker memory.Reranker
	// Guard holds the retries, timeouts, concurrency cap and usage counts
	// of LLM and Reranker (and of any embedder the caller wrapped with
	// it); nil means a provider.NewGuard(). Engine.Usage reports it.
	Guard *provider.Guard
	// Gates are the LLM extractor's confidence gates; zero means
	// extract.DefaultGates().
	Gates *extract.Gates
	// Weights overrides recall's strategy weights; zero means
	// recall.DefaultWeights with the built-in embedder and
	// recall.EmbedderWeights with another.
	Weights recall.Weights
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives background errors; nil means slog.Default().
	Logger *slog.Logger
	// AccessFlush is how often recall's access records are written; 0
	// means DefaultAccessFlush, negative disables access recording.
	AccessFlush time.Duration
	// WarmRecall prepares in the background, at Open, what the read path
	// otherwise makes on a first use and keeps for the process: the
	// stems of WordNet's nouns that questions asking for kinds search by
	// (recall.WarmKinds). For a long-lived process (a server), whose
	// first questions are then as fast as the rest; a one-shot command
	// leaves it off.
	WarmRecall bool

	// JobPoll is how often the background worker looks for queued jobs
	// (retain --async); 0 means DefaultJobPoll, negative runs no worker
	// (jobs then run only through Engine.RunJobs).
	JobPoll time.Duration
	// JobLease is how long a worker's claim on a job lasts without a
	// heartbeat: the worker renews it every JobLease/4 while the job
	// runs, and a job whose lease ran out (its worker died) is queued
	// again for another. 0 means DefaultJobLease. Every process sharing
	// a database should use the same lease.
	JobLease time.Duration
	// SessionUserMessages is how many buffered user messages make a
	// streaming session extract (seed 001: 10); 0 means the default,
	// negative disables the count trigger.
	SessionUserMessages int
	// SessionIdle is how long a session with buffered messages waits for
	// more before it is extracted anyway (seed 001: 5 minutes); 0 means
	// the default, negative disables the idle trigger.
	SessionIdle time.Duration
	// Consolidation holds the consolidation runner's triggers (pending
	// facts, idle, daily); zero fields mean the seeds' defaults
	// (consolidate.RunnerConfig), negative turns a trigger off.
	Consolidation consolidate.RunnerConfig
}

// Engine is mnemo: banks, retain and recall over one store. It is safe
// for concurrent use. Close it to flush pending work.
type Engine struct {
	store memory.Store
	// settingsMu makes ChangeBank's read-change-write one step in this
	// process.
	settingsMu sync.Mutex
	emb        memory.Embedder
	// llm is the configured model behind the guard; nil offline.
	llm    memory.LLM
	retain *retain.Pipeline
	recall *recall.Pipeline
	now    func() time.Time
	log    *slog.Logger

	guard    *provider.Guard
	access   *accessRecorder // background.go; nil: not recorded
	jobs     *jobRunner      // jobs.go
	sessions *sessionBuffer  // session.go
	masked   maskCounts      // firewall.go
	hooks    webhookCache    // webhooks.go
	// runnerCfg is the consolidation runner's config (runner.go).
	runnerCfg consolidate.RunnerConfig

	// The background loops run under ctx (background.go); Close cancels
	// it and waits for wg.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	closed sync.Once
	err    error // of the one Close
}

// Open opens the store named by cfg and returns a ready Engine.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.WarmRecall {
		recall.WarmKinds()
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	st := cfg.Store
	if st == nil {
		if cfg.DB == "" {
			return nil, memory.Errorf(memory.EINVALID, "no database: set Config.DB or Config.Store")
		}
		if postgres.IsURL(cfg.DB) {
			s, err := postgres.Open(ctx, cfg.DB)
			if err != nil {
				return nil, err
			}
			s.Now = now
			st = s
		} else {
			s, err := sqlite.Open(ctx, cfg.DB)
			if err != nil {
				return nil, err
			}
			s.Now = now
			st = s
		}
	}
	emb := cfg.Embedder
	if emb == nil {
		emb = hashembed.New(hashembed.DefaultDimension)
	}
	guard := cfg.Guard
	if guard == nil {
		guard = provider.NewGuard()
	}
	e := &Engine{store: st, emb: emb, now: now, log: log, guard: guard}
	if cfg.LLM != nil {
		llm := guard.LLM(cfg.LLM)
		e.llm = llm
		x := extract.NewLLM(llm)
		x.Now = now
		if cfg.Gates != nil {
			x.Gates = *cfg.Gates
		}
		e.retain = retain.New(st, emb, x)
		e.retain.Judge = extract.NewJudge(llm)
		e.retain.ResolveEntities = true
	} else {
		e.retain = retain.New(st, emb, extract.NewHeuristic())
	}
	e.retain.Now = now
	e.retain.ShortTermTTL = e.shortTermTTL // shortterm.go
	e.retain.Quarantine = quarantined      // firewall.go
	e.retain.Redact = e.redact             // firewall.go: RetainMany's items
	e.recall = recall.New(st, emb, extract.ResolveTimeRange)
	e.recall.Now = now
	e.recall.Lapsed = lapsed
	if cfg.Reranker != nil {
		e.recall.Reranker = guard.Reranker(cfg.Reranker)
	}
	switch {
	case cfg.Weights != (recall.Weights{}):
		e.recall.Weights = cfg.Weights
	case !memory.IsLexical(emb):
		// A learned embedder earns a say a lexical one does not: recall's
		// defaults were measured with the built-in hashing embedder.
		e.recall.Weights = recall.EmbedderWeights
	}
	e.startBackground(cfg) // background.go
	return e, nil
}

// Close flushes pending access records and closes the store. Calling it
// again returns the first call's error.
func (e *Engine) Close() error {
	e.closed.Do(func() {
		e.err = errors.Join(e.stopBackground(), e.store.Close())
	})
	return e.err
}

// Usage reports the provider calls made so far, per stage ("extract",
// "conflicts", "embed", "rerank", …): calls, errors, retries, tokens and
// summed latency.
func (e *Engine) Usage() map[string]memory.StageStats { return e.guard.Stats() }

// CreateBank creates a bank named name.
func (e *Engine) CreateBank(ctx context.Context, name string) (*memory.Bank, error) {
	if err := memory.ValidateBankName(name); err != nil {
		return nil, err
	}
	b := &memory.Bank{ID: name, Name: name, CreatedAt: e.now().UTC().Truncate(time.Microsecond)}
	if err := e.store.CreateBank(ctx, b); err != nil {
		return nil, err
	}
	return b, nil
}

// Bank returns the bank named name, or ENOTFOUND.
func (e *Engine) Bank(ctx context.Context, name string) (*memory.Bank, error) {
	return e.store.Bank(ctx, name)
}

// Banks lists the banks.
func (e *Engine) Banks(ctx context.Context) ([]*memory.Bank, error) {
	return e.store.Banks(ctx)
}

// DeleteBank deletes a bank and everything in it, and revokes its API keys.
func (e *Engine) DeleteBank(ctx context.Context, name string) error {
	if err := e.store.DeleteBank(ctx, name); err != nil {
		return err
	}
	return e.revokeBankKeys(ctx, name) // keys.go
}

// Retain remembers one item (see retain.Pipeline.Retain). The default
// bank is created on first use; any other bank must exist.
func (e *Engine) Retain(ctx context.Context, req memory.RetainRequest) (*memory.RetainResult, error) {
	req.BankID = defaultBank(req.BankID)
	if req.BankID == memory.DefaultBank {
		if err := e.ensureDefaultBank(ctx); err != nil {
			return nil, err
		}
	}
	e.redact(ctx, &req)
	res, err := e.retain.Retain(ctx, req)
	if err == nil {
		e.emitRetained(ctx, req.BankID, res)
	}
	return res, err
}

// RetainMany remembers many items, each with Retain's guarantees, and
// reports each one's result or error in order (see
// retain.Pipeline.RetainMany): prepared in parallel, written in order, many
// per commit. The default bank is created on first use.
func (e *Engine) RetainMany(ctx context.Context, reqs []memory.RetainRequest) ([]*memory.RetainResult, []error) {
	usesDefault := false
	for i := range reqs {
		reqs[i].BankID = defaultBank(reqs[i].BankID) // redacted as prepared (retain.Pipeline.Redact)
		usesDefault = usesDefault || reqs[i].BankID == memory.DefaultBank
	}
	if usesDefault {
		if err := e.ensureDefaultBank(ctx); err != nil {
			errs := make([]error, len(reqs))
			for j := range errs {
				errs[j] = err
			}
			return make([]*memory.RetainResult, len(reqs)), errs
		}
	}
	results, errs := e.retain.RetainMany(ctx, reqs, nil)
	for i, res := range results {
		if errs[i] == nil {
			e.emitRetained(ctx, reqs[i].BankID, res)
		}
	}
	return results, errs
}

// defaultBank is the bank a call names: bank, or memory.DefaultBank when
// bank is empty. Every façade call that takes a bank resolves it here.
func defaultBank(bank string) string {
	if bank == "" {
		return memory.DefaultBank
	}
	return bank
}

// ensureDefaultBank creates the default bank unless it exists.
func (e *Engine) ensureDefaultBank(ctx context.Context) error {
	_, err := e.store.Bank(ctx, memory.DefaultBank)
	if memory.ErrorCode(err) == memory.ENOTFOUND {
		_, err = e.CreateBank(ctx, memory.DefaultBank)
		if memory.ErrorCode(err) == memory.ECONFLICT {
			err = nil // another process created it first
		}
	}
	return err
}

// Recall answers a query from a bank (see recall.Pipeline.Recall) and
// records the access of what it returned in the background.
func (e *Engine) Recall(ctx context.Context, q memory.Query) (*memory.Recollection, error) {
	ctx = memory.WithReadScope(ctx) // one check of the bank's row for all the reads below
	q.BankID = defaultBank(q.BankID)
	if err := e.whole(ctx, q.BankID); err != nil && memory.ErrorCode(err) != memory.ENOTFOUND {
		return nil, err
	}
	rec, err := e.recall.Recall(ctx, q)
	if err != nil {
		return nil, err
	}
	e.attachStanding(ctx, q, rec) // standing.go
	if e.access != nil && len(rec.Results) > 0 {
		ids := make([]string, len(rec.Results))
		for i, r := range rec.Results {
			ids[i] = r.Fact.ID
		}
		e.access.record(q.BankID, ids)
	}
	if e.access != nil && len(rec.Observations) > 0 {
		// Archival keeps observations that are recalled (archive.go).
		ids := make([]string, len(rec.Observations))
		for i, o := range rec.Observations {
			ids[i] = o.Observation.ID
		}
		e.access.recordObservations(q.BankID, ids)
	}
	return rec, nil
}

// Stats counts what a bank holds.
func (e *Engine) Stats(ctx context.Context, bank string) (*memory.Stats, error) {
	bank = defaultBank(bank)
	if err := e.whole(ctx, bank); err != nil && memory.ErrorCode(err) != memory.ENOTFOUND {
		return nil, err
	}
	return e.store.Stats(ctx, bank)
}
