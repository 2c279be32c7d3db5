package memory

import "time"

// The checks and defaults every [Store] applies to what it is asked to
// write, before its SQL: written once here so that the stores agree on
// them, error messages included. The rules that stores spell in SQL
// (MergeEntity's) are in entity.go.

// PrepareFacts readies a batch's new facts for insert, in place. Every
// fact needs an ID (else EINVALID) that no other fact of the batch has
// (else ECONFLICT); an empty Status, Kind or Sensitivity becomes
// StatusActive, KindWorld or SensitivityOpen; BankID becomes bank and
// Seq is numbered from next, in order. It returns the next free seq. On
// an error the facts before the faulty one are already changed: the
// caller discards the batch.
func PrepareFacts(bank string, facts []*Fact, next int64) (int64, error) {
	seen := make(map[string]bool, len(facts))
	for _, f := range facts {
		if f.ID == "" {
			return next, Errorf(EINVALID, "fact without id")
		}
		if seen[f.ID] {
			return next, Errorf(ECONFLICT, "fact %s appears twice in the batch", f.ID)
		}
		seen[f.ID] = true
		if f.Status == "" {
			f.Status = StatusActive
		}
		if f.Kind == "" {
			f.Kind = KindWorld
		}
		if f.Sensitivity == "" {
			f.Sensitivity = SensitivityOpen
		}
		f.BankID = bank
		f.Seq = next
		next++
	}
	return next, nil
}

// Validate reports whether u can be written: its entity needs an ID and
// a Name. It returns nil or an EINVALID *Error.
func (u *EntityUpsert) Validate() error {
	if u.Entity.ID == "" || u.Entity.Name == "" {
		return Errorf(EINVALID, "entity without id or name")
	}
	return nil
}

// Stored returns the entity u creates when it is the entity's first
// upsert: u.Entity with an empty Type as EntityThing and an empty Tier as
// TierEpisodic (u is not changed; Aliases are shared). It returns an
// EINVALID *Error when u does not [EntityUpsert.Validate].
func (u *EntityUpsert) Stored() (Entity, error) {
	if err := u.Validate(); err != nil {
		return Entity{}, err
	}
	e := u.Entity
	if e.Type == "" {
		e.Type = EntityThing
	}
	if e.Tier == "" {
		e.Tier = TierEpisodic
	}
	return e, nil
}

// ValidateDocument reports whether d can be written: it needs an ID, a
// Source and an ItemID. It returns nil or an EINVALID *Error.
func ValidateDocument(d *Document) error {
	if d.ID == "" || d.Source == "" || d.ItemID == "" {
		return Errorf(EINVALID, "document: id, source and item id are required")
	}
	return nil
}

// Validate reports whether d names a session to drain. It returns nil or
// an EINVALID *Error.
func (d *SessionDrain) Validate() error {
	if d.Session == "" {
		return Errorf(EINVALID, "drain session: a session id is required")
	}
	return nil
}

// ValidateAppend reports whether msgs can be appended to session: the
// session id is not empty and every message passes
// [ValidateSessionMessage]. It returns nil or an EINVALID *Error naming
// the first faulty message by its place (from 1).
func ValidateAppend(session string, msgs []SessionMessage) error {
	if session == "" {
		return Errorf(EINVALID, "session: a session id is required")
	}
	for i, m := range msgs {
		if err := ValidateSessionMessage(m); err != nil {
			return Errorf(EINVALID, "session message %d: %s", i+1, ErrorMessage(err))
		}
	}
	return nil
}

// NumberMessages assigns msgs their Seq, in place and in order, from
// next, and returns the next free seq.
func NumberMessages(msgs []SessionMessage, next int64) int64 {
	for i := range msgs {
		msgs[i].Seq = next
		next++
	}
	return next
}

// StoreTime is t as the stores keep it: UTC, to the microsecond (the
// precision of both stores' timestamps).
func StoreTime(t time.Time) time.Time {
	return t.UTC().Truncate(time.Microsecond)
}

// PrepareEnqueue readies j for [JobQueue.EnqueueJob], in place: ID, BankID and
// Kind are required (else EINVALID); a zero CreatedAt becomes now (read
// only then) as [StoreTime]; Status becomes JobQueued, Attempts 0,
// UpdatedAt CreatedAt, and Result and Error are cleared.
func (j *Job) PrepareEnqueue(now func() time.Time) error {
	if j.ID == "" || j.BankID == "" || j.Kind == "" {
		return Errorf(EINVALID, "job: id, bank and kind are required")
	}
	if j.CreatedAt.IsZero() {
		j.CreatedAt = StoreTime(now())
	}
	j.Status, j.Attempts, j.UpdatedAt, j.Result, j.Error = JobQueued, 0, j.CreatedAt, nil, ""
	return nil
}

// PrepareFinish readies j for [JobQueue.FinishJob], in place: its Status must be
// JobDone, JobFailed or JobQueued (else EINVALID); a zero UpdatedAt
// becomes now (read only then) as [StoreTime].
func (j *Job) PrepareFinish(now func() time.Time) error {
	switch j.Status {
	case JobDone, JobFailed, JobQueued:
	default:
		return Errorf(EINVALID, "finish job %s: status %q is not done, failed or queued", j.ID, j.Status)
	}
	if j.UpdatedAt.IsZero() {
		j.UpdatedAt = StoreTime(now())
	}
	return nil
}

// Prepare readies b for [Banks.CreateBank], in place: an empty ID is
// the Name and an empty Name the ID; the ID must pass
// [ValidateBankName]; a zero CreatedAt becomes now (read only then) as
// [StoreTime].
func (b *Bank) Prepare(now func() time.Time) error {
	if b.ID == "" {
		b.ID = b.Name
	}
	if b.Name == "" {
		b.Name = b.ID
	}
	if err := ValidateBankName(b.ID); err != nil {
		return err
	}
	if b.CreatedAt.IsZero() {
		b.CreatedAt = StoreTime(now())
	}
	return nil
}

// UnknownBank is the ENOTFOUND error of a call naming a bank that does
// not exist.
func UnknownBank(id string) error {
	return Errorf(ENOTFOUND, "unknown bank %q", id)
}

// ValidateEmbedder reports whether a bank can be set to embedder name
// with vectors of dimension dim: name is not empty and dim is positive.
// It returns nil or an EINVALID *Error.
func ValidateEmbedder(name string, dim int) error {
	if name == "" || dim <= 0 {
		return Errorf(EINVALID, "embedder name and a positive dimension are required")
	}
	return nil
}

// EmbedderConflict is the ECONFLICT error of setting bank, which holds
// vectors of embedder cur (dimension curDim), to another embedder name
// (dimension dim).
func EmbedderConflict(bank, cur string, curDim int, name string, dim int) error {
	return Errorf(ECONFLICT, "bank %q holds vectors of embedder %q (dimension %d), not %q (dimension %d): use the same embedder or a new bank", bank, cur, curDim, name, dim)
}

// FitDimension returns the vector dimension of a bank holding dim (0:
// none yet) once facts are written to it: the first embedding sets it
// when the bank has none, and every embedding must have it, else an
// EINVALID *Error names the first fact that does not. Facts without an
// embedding fit any bank.
func FitDimension(bank string, dim int, facts []*Fact) (int, error) {
	for _, f := range facts {
		n := len(f.Embedding)
		if n == 0 {
			continue
		}
		if dim == 0 {
			dim = n
		}
		if n != dim {
			return dim, Errorf(EINVALID, "fact %s: embedding has dimension %d, bank %q holds dimension %d", f.ID, n, bank, dim)
		}
	}
	return dim, nil
}

// ImportFact checks an exported fact before it is imported into bank,
// which holds vectors of dimension *dim (0: none yet, and then the
// fact's embedding sets it), and returns it as a fact of bank. The fact
// needs an ID and a positive Seq. It returns an EINVALID *Error when the
// fact does not fit.
func ImportFact(bank string, x *ExportFact, dim *int) (*Fact, error) {
	if x.ID == "" || x.Seq <= 0 {
		return nil, Errorf(EINVALID, "import: a fact needs an id and a positive seq")
	}
	if n := len(x.Embedding); n > 0 {
		if *dim == 0 {
			*dim = n
		}
		if n != *dim {
			return nil, Errorf(EINVALID, "import: fact %s has dimension %d, bank %q holds dimension %d", x.ID, n, bank, *dim)
		}
	}
	return x.Fact(bank), nil
}

// ValidateObservations reports whether obs can be put: none is nil and
// each has an ID and a Text. It returns nil or an EINVALID *Error.
func ValidateObservations(obs []*Observation) error {
	for _, o := range obs {
		if o == nil || o.ID == "" || o.Text == "" {
			return Errorf(EINVALID, "observation without id or text")
		}
	}
	return nil
}

// StatusKind returns the Status and Kind an observation is stored with:
// its own, or StatusActive and ObservationPattern when empty.
func (o *Observation) StatusKind() (Status, ObservationKind) {
	status, kind := o.Status, o.Kind
	if status == "" {
		status = StatusActive
	}
	if kind == "" {
		kind = ObservationPattern
	}
	return status, kind
}

// OrderByIDs returns the values of byID in the order of ids, the order
// a Store returns what it is asked for by id: an id not in byID is left
// out, and an id asked twice comes back once.
func OrderByIDs[T any](ids []string, byID map[string]T) []T {
	out := make([]T, 0, len(byID))
	seen := make(map[string]bool, len(byID))
	for _, id := range ids {
		if v, ok := byID[id]; ok && !seen[id] {
			out = append(out, v)
			seen[id] = true
		}
	}
	return out
}

// LostClaim is the ECONFLICT of a job update made under j's claim (its
// Attempts) when the stored job is status with attempts: it is no longer
// running under that claim — its lease ran out and it was requeued, and
// maybe claimed again by another worker, or it ended.
func LostClaim(j *Job, status JobStatus, attempts int) error {
	return Errorf(ECONFLICT, "job %s lost its claim (attempt %d): it is %s at attempt %d now — its lease ran out and another worker may run it",
		j.ID, j.Attempts, status, attempts)
}
