package memory

import (
	"context"
	"time"
)

// Store is the persistence contract every backend (SQLite, PostgreSQL)
// implements and store/storetest checks: the sum of the named
// capabilities below. Pipelines never take a Store: each declares, in its
// own package, the few methods it consumes (retain.Store, recall.Store),
// and the façade hands it the whole.
//
// All methods are safe for concurrent use. Every method that takes a bank
// id touches nothing outside that bank; a bank id that does not exist
// gives an ENOTFOUND *Error.
//
// Optional capabilities, detected by type assertion as database/sql
// detects driver extras: [BulkWriter], [DocumentSearcher],
// [ObservationStore], [Exporter], [Importer]. A capability added later
// (forget, blocks, keys, runs, lifecycle updates) arrives the same way: a
// named interface here, a group file in store/storetest that checks it,
// and — once every store has it — a place in this sum.
type Store interface {
	Banks
	Writer
	Reader
	Searcher
	Graph
	JobQueue
	SessionBuffer
	AccessRecorder
	Keys          // key.go
	Blocks        // block.go
	Forgetter     // forget.go
	FactLister    // facts.go
	Lifecycle     // facts.go
	FactMerger    // merge.go
	FactVectors   // vectors.go
	MergeVerdicts // verdict.go
	FactGrouper   // group.go
	Runs          // run.go
	Decay         // decay.go
	Promoter      // shortterm.go
	Webhooks      // webhook.go

	EntityTimelines  // timeline.go: the temporal pass
	ImportanceScores // importance.go: importance scoring
	Directives       // directive.go: must-follow memories
	StandingAnswers  // standing.go: pinned questions and their answers
	Communities      // community.go: the communities pass
	// Close releases the store's resources.
	Close() error
}

// Banks creates, lists and deletes banks.
type Banks interface {
	// CreateBank creates a bank; ECONFLICT if one of that name exists.
	CreateBank(ctx context.Context, b *Bank) error
	// Bank returns the bank with the given id, or ENOTFOUND.
	Bank(ctx context.Context, id string) (*Bank, error)
	// Banks lists every bank ordered by id.
	Banks(ctx context.Context) ([]*Bank, error)
	// DeleteBank removes a bank and everything in it, or ENOTFOUND.
	DeleteBank(ctx context.Context, id string) error
	// SetBankEmbedder records the embedder name and dimension of a bank's
	// vectors. It succeeds if none was recorded or the same one was, and
	// fails with ECONFLICT if another was.
	SetBankEmbedder(ctx context.Context, bankID, name string, dim int) error
	// SetBankSettings replaces a bank's settings after checking them
	// (BankSettings.Validate: EINVALID, nothing stored), or ENOTFOUND.
	SetBankSettings(ctx context.Context, bankID string, s BankSettings) error
	// Stats counts what a bank holds.
	Stats(ctx context.Context, bankID string) (*Stats, error)
}

// Writer is the write path's one door: every change retain makes to a
// bank (a document with its facts, entities, links and relations, the
// facts it supersedes or reinforces, a watermark, a session drain) is one
// WriteBatch.
type Writer interface {
	// Write applies a batch atomically: everything in it is stored, or
	// nothing is. A batch whose document (bank, source, item) was already
	// stored with the same content hash stores nothing and reports
	// Duplicate; with a different hash the batch's document takes the old
	// one's place (Replaced): the old document row and its chunks go, and
	// its facts stay, bi-temporally superseded — each active one gets
	// StatusSuperseded and ExpiredAt = the new document's CreatedAt (the
	// store's clock when zero), keeps its DocumentID and loses its
	// ChunkID — so history and as-of reads still find them. Only facts
	// under the new version's own document id (the old one reused it, or
	// an earlier version had the same content: A, B, then A again) are
	// removed, as the new facts take their place.
	Write(ctx context.Context, w *WriteBatch) (*WriteResult, error)
}

// Reader reads documents, facts and ingest state by id.
type Reader interface {
	// DocumentByItem returns the document stored for (source, item), or
	// ENOTFOUND.
	DocumentByItem(ctx context.Context, bankID, source, item string) (*Document, error)
	// Chunks returns the chunks of a document in index order.
	Chunks(ctx context.Context, bankID, documentID string) ([]*Chunk, error)
	// Facts returns the facts with the given ids in the order asked; ids
	// that do not exist are left out. Embeddings are not loaded.
	Facts(ctx context.Context, bankID string, ids []string) ([]*Fact, error)
	// Neighbours returns each given fact's window in its document: the
	// ids of the facts of the same document from radius positions before
	// it to radius positions after it, the fact itself included, in Seq
	// order (a chat message with the turns around it). Positions count
	// every fact of the document, whatever its status: the window is the
	// document's structure, and callers filter. A fact without a document
	// (DocumentID "") is its own window. Ids that do not exist are absent
	// from the map; a negative radius counts as 0.
	Neighbours(ctx context.Context, bankID string, factIDs []string, radius int) (map[string][]string, error)
	// SupersededBy returns the facts that the given facts superseded
	// (their SupersededBy is one of factIDs), newest (highest Seq) first.
	SupersededBy(ctx context.Context, bankID string, factIDs []string) ([]*Fact, error)
	// Watermark returns the ingest watermark of a source, or ENOTFOUND.
	Watermark(ctx context.Context, bankID, source string) (*Watermark, error)
}

// Searcher finds facts by similarity and by words.
type Searcher interface {
	// SearchVector returns the k facts most similar (cosine) to vec that
	// pass the filter, best first; Score is the cosine similarity.
	SearchVector(ctx context.Context, bankID string, vec []float32, k int, f Filter) ([]Hit, error)
	// SearchText runs a full-text search for any of terms (plain words: the
	// store quotes them, so no query syntax can be injected) and returns up
	// to k facts that pass the filter, best first; Score is BM25 (higher is
	// better).
	SearchText(ctx context.Context, bankID string, terms []string, k int, f Filter) ([]Hit, error)
}

// Graph reads the bank's graph: links between facts, entities and the
// facts that mention them, and relations between entities.
type Graph interface {
	// Links returns the links leaving the given facts, of the given kinds
	// (all kinds when none are given).
	Links(ctx context.Context, bankID string, factIDs []string, kinds ...LinkKind) ([]Link, error)
	// EntitiesByName returns the entities whose normalised name or alias is
	// one of names (already normalised with NormalizeName), of any type.
	EntitiesByName(ctx context.Context, bankID string, names []string) ([]*Entity, error)
	// EntityRefs returns the entity refs of the given facts.
	EntityRefs(ctx context.Context, bankID string, factIDs []string) ([]EntityRef, error)
	// FactsByEntities returns, for each of the entities, up to limit
	// active facts that mention it, newest (highest Seq) first. Entities
	// with no such fact are absent from the map.
	FactsByEntities(ctx context.Context, bankID string, entityIDs []string, limit int) (map[string][]string, error)
	// Entities returns the entities with the given ids.
	Entities(ctx context.Context, bankID string, ids []string) ([]*Entity, error)
	// Relations returns the relations of a bank that match q, ordered by
	// created_at then id.
	Relations(ctx context.Context, bankID string, q RelationQuery) ([]*Relation, error)
	// SimilarEntities returns up to k entities of type t whose name
	// embedding has a cosine of at least min with vec, best first.
	// Entities stored without an embedding are never returned.
	SimilarEntities(ctx context.Context, bankID string, t EntityType, vec []float32, k int, min float64) ([]EntityHit, error)
}

// JobQueue is the durable queue of background work (retain --async): a
// job survives a restart and is claimed by one worker at a time.
type JobQueue interface {
	// EnqueueJob stores a new queued job (ID, BankID, Kind, Payload and
	// CreatedAt set by the caller); ECONFLICT if its id exists.
	EnqueueJob(ctx context.Context, j *Job) error
	// ClaimJob marks the oldest queued job of any bank whose UpdatedAt is
	// not after at running (one more attempt, UpdatedAt = at) and returns
	// it; ENOTFOUND when none is due. A job requeued with a later
	// UpdatedAt waits until then: that is how retries back off. Two
	// callers never claim the same job.
	ClaimJob(ctx context.Context, at time.Time) (*Job, error)
	// FinishJob records a claimed job's end: its Status (done, failed or
	// queued again), Result, Error and UpdatedAt. A job done drops its
	// Payload: what it retained lives on as memory, which forget can
	// remove, not as a copy in the queue. The claim is j's Attempts: a
	// job no longer running under it (requeued when its lease ran out,
	// and maybe claimed by another worker since) is ECONFLICT and left
	// as it is — one claim's end never overwrites another's; an unknown
	// job is ENOTFOUND.
	FinishJob(ctx context.Context, j *Job) error
	// RenewJob is a claimed job's heartbeat: it sets the job's UpdatedAt
	// (the start of its lease, which RequeueJobs reads) to at, in j too,
	// while the job is still running under j's claim (Attempts). A job
	// no longer running under that claim is ECONFLICT, and its holder
	// must stop; an unknown job is ENOTFOUND.
	RenewJob(ctx context.Context, j *Job, at time.Time) error
	// Job returns one job, or ENOTFOUND.
	Job(ctx context.Context, bankID, id string) (*Job, error)
	// Jobs lists a bank's jobs, newest first, at most limit (0: all).
	Jobs(ctx context.Context, bankID string, limit int) ([]*Job, error)
	// RequeueJobs puts back in the queue every running job claimed before
	// staleBefore (its worker died: the claim's lease ran out) and returns
	// how many. Jobs claimed since are left to their live workers.
	RequeueJobs(ctx context.Context, staleBefore time.Time) (int, error)
}

// SessionBuffer holds the messages of streaming chat sessions until they
// are extracted (a WriteBatch's DrainSession removes them).
type SessionBuffer interface {
	// AppendSession adds messages to a session's buffer, in order, and
	// returns the buffer's state afterwards. A message that fails
	// ValidateSessionMessage is EINVALID and nothing is appended.
	AppendSession(ctx context.Context, bankID, session string, msgs []SessionMessage) (*SessionState, error)
	// Session returns the buffered messages of a session in order.
	Session(ctx context.Context, bankID, session string) ([]SessionMessage, error)
	// Sessions returns the state of every session of the bank with
	// buffered messages.
	Sessions(ctx context.Context, bankID string) ([]SessionState, error)
}

// AccessRecorder keeps the access counters decay reads.
type AccessRecorder interface {
	// RecordAccess adds one access to each fact and sets last_accessed.
	RecordAccess(ctx context.Context, bankID string, factIDs []string, at time.Time) error
}

// WriteBatch is everything one retained document writes. Store.Write
// applies it in one transaction.
type WriteBatch struct {
	BankID   string
	Document *Document
	// Continue says Document is stored already: the batch is a later
	// segment of one large document (retain's segmented path), adding
	// its chunks, facts and graph to the document an earlier batch
	// stored. The store checks that the item's stored version is still
	// Document (the same id), else the batch fails whole with ECONFLICT
	// (the item was replaced or forgotten since), and sets the stored
	// document's ContentHash and Content to Document's; nothing else of
	// the document row changes and the batch is never a duplicate. (The
	// segmented path stores the document without content and writes its
	// text once, with the final content hash, in a last batch of its own.)
	// Without Continue a batch's Document is a new version of its item.
	Continue bool
	Chunks   []*Chunk
	Facts    []*Fact // with Embedding set; Seq is assigned by the store
	Entities []EntityUpsert
	Refs     []EntityRef
	// Cooccurrences counts entity pairs mentioned together; A < B.
	Cooccurrences []Cooccurrence
	Links         []Link
	// Relations are upserted whole: new edges, edges that gain support,
	// and edges closed (ValidTo and ExpiredAt set).
	Relations []*Relation
	// RelationCloses names the edges of Relations that this batch closes
	// because a newer edge replaces them. The store records each close
	// under a constraint the database enforces: an edge is closed once,
	// so a batch that closes an edge another writer closed since it was
	// read fails whole with ErrRelationClosed (ECONFLICT), and the caller
	// resolves the item again against the edge that replaced it.
	RelationCloses []RelationClose
	// Reinforce adds one to reinforcement_count of these existing facts.
	Reinforce []string
	// Supersede marks existing facts superseded by new ones. A fact is
	// superseded once, while it is active: a batch that supersedes an
	// unknown fact fails whole with ENOTFOUND, and one that supersedes a
	// fact no longer active (another writer superseded it since it was
	// read) fails whole with ErrFactSuperseded (ECONFLICT), so that two
	// writers never leave two active successors of one fact.
	Supersede []Supersession
	// Watermark, when set, is stored in the same transaction.
	Watermark *Watermark
	// Contradicted marks these entities contradicted (Annie: a
	// contradicted entity is demoted and never promoted).
	Contradicted []string
	// DrainSession, when set, removes the session messages it names in
	// the same transaction: the document is what they became.
	DrainSession *SessionDrain
}

// RelationQuery selects relations. Empty fields match anything; Current
// keeps only open edges (no ExpiredAt).
type RelationQuery struct {
	SubjectID string
	Predicate string
	ObjectID  string
	// EntityID matches relations with the entity at either end.
	EntityID string
	Current  bool
}

// EntityHit is an entity found by similarity with its cosine.
type EntityHit struct {
	Entity *Entity
	Score  float64
}

// JobStatus is where a queued job is.
type JobStatus string

const (
	JobQueued  JobStatus = "queued"
	JobRunning JobStatus = "running"
	JobDone    JobStatus = "done"
	JobFailed  JobStatus = "failed"
)

// JobRetain is the kind of an asynchronous retain; its payload is a JSON
// RetainRequest and its result a JSON RetainResult.
const JobRetain = "retain"

// Job is a unit of queued work, durable in the store: it survives a
// restart and is claimed by one worker at a time.
type Job struct {
	ID        string
	BankID    string
	Kind      string
	Payload   []byte // JSON
	Status    JobStatus
	Attempts  int
	Result    []byte // JSON, when done
	Error     string // when failed (or the last failed attempt)
	CreatedAt time.Time
	UpdatedAt time.Time
}

// SessionMessage is one buffered message of a streaming chat session;
// Seq is assigned by the store, increasing within the session.
type SessionMessage struct {
	Seq  int64
	Role Role // RoleUser or RoleAssistant
	Message
}

// SessionState summarises a session's buffer.
type SessionState struct {
	Session string
	// Messages and UserMessages count what is buffered.
	Messages     int
	UserMessages int
	// FirstSeq and LastSeq bound the buffered messages' Seq.
	FirstSeq, LastSeq int64
	// LastAt is when the newest buffered message arrived.
	LastAt time.Time
}

// SessionDrain names the buffered messages of a session up to and
// including Seq UpTo.
type SessionDrain struct {
	Session string
	UpTo    int64
}

// EntityUpsert creates an entity or adds to an existing one: mention and
// episode counts are added, first_seen/last_seen widened, aliases merged
// ([MergeEntity] is the rule; [EntityUpsert.Add] sums two upserts).
type EntityUpsert struct {
	Entity Entity // ID, Name, Type, Aliases, FirstSeen, LastSeen
	// Embedding of the entity's name, for SimilarEntities; kept from the
	// first upsert that has one. Optional.
	Embedding []float32
	Mentions  int
	Episodes  int
}

// Cooccurrence is a count of how often two entities are mentioned in one
// fact; EntityA < EntityB.
type Cooccurrence struct {
	EntityA, EntityB string
	Count            int
}

// Supersession closes an old fact: status superseded, superseded_by,
// valid_to and expired_at.
type Supersession struct {
	FactID       string
	SupersededBy string
	ValidTo      time.Time
	ExpiredAt    time.Time
}

// WriteResult reports what Store.Write did.
type WriteResult struct {
	// Duplicate is true when the document was already stored with the same
	// content: nothing was written.
	Duplicate bool
	// Replaced is true when an older version of the document was replaced.
	Replaced   bool
	DocumentID string
	Facts      int
}

// Filter narrows searches. The zero value matches every active fact.
type Filter struct {
	Kinds []FactKind
	// Categories keeps facts of any of these categories; nil matches
	// every category ([CheckCategories] names the known ones).
	Categories []Category
	Tags       []string // any of
	// From/To bound the event time; zero is open.
	From, To time.Time
	// Statuses to include; nil means active only.
	Statuses []Status
	// Sensitive includes facts classified sensitive.
	Sensitive bool
	// AsOf, when set, answers from what mnemo knew at that time (the
	// transaction timeline): only facts with CreatedAt ≤ AsOf and no
	// ExpiredAt, or ExpiredAt > AsOf. Statuses then apply to the status a
	// fact had at AsOf: a fact superseded after AsOf was active then.
	AsOf time.Time
}

// StatusAt is the status f had at time t on the transaction timeline: a
// fact superseded (expired) after t was active at t. Other statuses carry
// no time and are taken as they are.
func StatusAt(f *Fact, t time.Time) Status {
	st := f.Status
	if st == "" {
		st = StatusActive
	}
	if st == StatusSuperseded && !f.ExpiredAt.IsZero() && f.ExpiredAt.After(t) {
		return StatusActive
	}
	return st
}

// KnownAt reports whether mnemo knew f at time t: created at or before t
// and not expired by then.
func KnownAt(f *Fact, t time.Time) bool {
	return !f.CreatedAt.After(t) && (f.ExpiredAt.IsZero() || f.ExpiredAt.After(t))
}

// Hit is one search result: a fact id with the strategy's own score.
type Hit struct {
	ID    string
	Score float64
}

// Stats counts the contents of a bank.
type Stats struct {
	Documents  int
	Chunks     int
	Facts      int
	Active     int
	Superseded int
	Archived   int
	// Quarantined counts facts held back as instructions to a model;
	// Redacted counts facts whose text had a secret masked.
	Quarantined int
	Redacted    int
	Entities    int
	Relations   int
	Links       int
}

// BulkWriter is implemented by stores that can apply many batches with
// one commit. Each batch stays atomic on its own: a failing batch is
// rolled back alone and reported in its outcome, and the others land.
// Callers detect it by type assertion and fall back to Store.Write.
type BulkWriter interface {
	WriteMany(ctx context.Context, ws []*WriteBatch) []WriteOutcome
}

// WriteOutcome is the result of one batch of BulkWriter.WriteMany: a
// result, or the error that kept the batch out.
type WriteOutcome struct {
	Result *WriteResult
	Err    error
}

// DocumentSearcher is implemented by stores that rank whole documents by
// full text. Recall detects it by type assertion; without it, a document
// counts as much as its best-matching fact.
type DocumentSearcher interface {
	// SearchDocuments runs a full-text search for any of terms (plain
	// words, as in Store.SearchText: nothing in them is query syntax) over
	// the bank's documents, each taken as one text: the speaker and text
	// of every fact of the document, whatever its status or sensitivity
	// (a chat session as it was said). It returns up to k documents that
	// match at least one term, best first; Hit.ID is the document id and
	// Score its Okapi BM25 (higher is better) with the same word analysis
	// and constants as SearchText, over the statistics of the bank's
	// documents that have at least one fact (N, document frequency,
	// average length in words). Facts without a document are part of
	// none. Ties go to the document stored first. An unknown bank is
	// ENOTFOUND; no terms or k ≤ 0 give no hits.
	SearchDocuments(ctx context.Context, bankID string, terms []string, k int) ([]Hit, error)
}
