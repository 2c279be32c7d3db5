package mnemo

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mnemo-ai/mnemo/memory"
)

// DefaultImportGroup is how many records of an export Engine.ImportBank
// hands the store per transaction.
const DefaultImportGroup = 2000

// Export writes everything bank holds to w as JSON lines, one
// memory.ExportRecord a line, the header (format version
// memory.ExportVersion and the bank) first: documents, chunks, facts with
// embeddings and lifecycle, entities with aliases, counts and embeddings,
// refs, co-occurrences, relations, links, observations, watermarks and
// session buffers (docs/export.md). Queued jobs are not exported. The
// store must implement memory.Exporter (both built-in stores do).
func (e *Engine) Export(ctx context.Context, bank string, w io.Writer) error {
	x, ok := e.store.(memory.Exporter)
	if !ok {
		return memory.Errorf(memory.EINVALID, "this store cannot export banks")
	}
	if err := e.whole(ctx, bank); err != nil && memory.ErrorCode(err) != memory.ENOTFOUND {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return memory.ExportWithTrailer(ctx, x, bank, func(rec *memory.ExportRecord) error {
		return enc.Encode(rec)
	})
}

// ImportBankOptions tune Engine.ImportBank.
type ImportBankOptions struct {
	// Bank is the bank to create and fill; empty means the exported
	// bank's own id.
	Bank string
	// Progress, when set, is called after each group of records with the
	// number imported so far.
	Progress func(done int)
}

// ImportBankReport counts what Engine.ImportBank imported, by record kind.
type ImportBankReport struct {
	Bank    string         `json:"bank"`
	Records int            `json:"records"`
	Counts  map[string]int `json:"counts"`
}

// ImportBank reads an export written by Export (from this store or
// another: SQLite to PostgreSQL and back; of this format version or an
// older one, upgraded as it is read) and creates the bank it holds,
// as it was: facts keep their Seq, lifecycle and embeddings, entities
// their counts. The bank must not exist (ECONFLICT), unless an import of
// it was interrupted: that incomplete bank is replaced. Records go to
// the store in groups of DefaultImportGroup, each in one transaction,
// into a bank marked restoring (memory.BankSettings.Restoring) until the
// whole export is in and its trailer matches what was read: a killed
// import leaves a bank that Stats, Recall and Export refuse
// (EUNAVAILABLE) and the next import replaces. An export of version 2
// without its trailer, or with other counts, is EINVALID (a file cut
// short). If anything fails, the bank is deleted again, so a failed
// import leaves nothing.
// The store must implement memory.Importer (both built-in stores do).
func (e *Engine) ImportBank(ctx context.Context, r io.Reader, opts ImportBankOptions) (*ImportBankReport, error) {
	im, ok := e.store.(memory.Importer)
	if !ok {
		return nil, memory.Errorf(memory.EINVALID, "this store cannot import banks")
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
	line, version := 0, 0
	next := func() (*memory.ExportRecord, error) {
		for sc.Scan() {
			line++
			if len(sc.Bytes()) == 0 {
				continue
			}
			var rec *memory.ExportRecord
			var err error
			if version == 0 {
				version, rec, err = memory.ReadExportHeader(sc.Bytes())
			} else {
				rec, err = memory.ReadExportRecord(version, sc.Bytes())
			}
			if err != nil {
				return nil, memory.Errorf(memory.EINVALID, "export line %d: %s", line, memory.ErrorMessage(err))
			}
			return rec, nil
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("read export: %w", err)
		}
		return nil, io.EOF
	}
	head, err := next()
	if errors.Is(err, io.EOF) {
		return nil, memory.Errorf(memory.EINVALID, "the export is empty")
	}
	if err != nil {
		return nil, err
	}
	b := *head.Bank.Bank()
	if opts.Bank != "" {
		b.ID, b.Name = opts.Bank, opts.Bank
	}
	embedder, dim := b.Embedder, b.Dimension
	b.Embedder, b.Dimension = "", 0
	// The bank is marked restoring until the whole export is in
	// (finishRestore): a killed import leaves a bank that stats, recall
	// and export refuse, and that the next import of it replaces.
	b.Settings.Restoring = true
	if err := e.store.CreateBank(ctx, &b); memory.ErrorCode(err) == memory.ECONFLICT {
		old, berr := e.store.Bank(ctx, b.ID)
		if berr != nil || !old.Settings.Restoring {
			return nil, err
		}
		if err := e.store.DeleteBank(ctx, b.ID); err != nil {
			return nil, fmt.Errorf("remove the incomplete bank %s of an interrupted import: %w", b.ID, err)
		}
		if err := e.store.CreateBank(ctx, &b); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	rep := &ImportBankReport{Bank: b.ID, Counts: map[string]int{}}
	fail := func(err error) (*ImportBankReport, error) {
		// Leave nothing half-imported; the caller's context may be done.
		if derr := e.store.DeleteBank(context.WithoutCancel(ctx), b.ID); derr != nil {
			err = errors.Join(err, fmt.Errorf("remove the half-imported bank %s: %w", b.ID, derr))
		}
		return nil, err
	}
	if embedder != "" && dim > 0 {
		if err := e.store.SetBankEmbedder(ctx, b.ID, embedder, dim); err != nil {
			return fail(err)
		}
	}
	group := make([]*memory.ExportRecord, 0, DefaultImportGroup)
	flush := func() error {
		if len(group) == 0 {
			return nil
		}
		if err := im.Import(ctx, b.ID, group); err != nil {
			return err
		}
		rep.Records += len(group)
		if opts.Progress != nil {
			opts.Progress(rep.Records)
		}
		group = group[:0]
		return nil
	}
	var trailer *memory.ExportTrailer
	for {
		rec, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(err)
		}
		if trailer != nil {
			return fail(memory.Errorf(memory.EINVALID, "export line %d: a record after the trailer (two files joined?); nothing was imported", line))
		}
		if rec.Kind == memory.RecordHeader {
			return fail(memory.Errorf(memory.EINVALID, "export line %d: a second header (one bank per export)", line))
		}
		if rec.Kind == memory.RecordTrailer {
			if rec.Trailer == nil {
				return fail(memory.Errorf(memory.EINVALID, "export line %d: an empty trailer", line))
			}
			trailer = rec.Trailer
			continue
		}
		rep.Counts[rec.Kind]++
		group = append(group, rec)
		if len(group) == DefaultImportGroup {
			if err := flush(); err != nil {
				return fail(err)
			}
		}
	}
	if err := flush(); err != nil {
		return fail(err)
	}
	// Since version 3 an export ends with a trailer counting its records:
	// a file cut short (a full disk, an interrupted copy, head -n) has
	// none, or other counts. A version-2 file may have one (written in
	// the days before the version changed): it is checked when there.
	switch {
	case trailer != nil:
		if err := trailer.Check(rep.Counts); err != nil {
			return fail(err)
		}
	case version >= 3:
		return fail(memory.Errorf(memory.EINVALID, "the export ends at line %d without its trailer: the file is cut short (or damaged); nothing was imported — export the bank again", line))
	}
	if err := e.finishRestore(ctx, &b); err != nil {
		return fail(err)
	}
	return rep, nil
}

// finishRestore clears the restoring mark of a bank ImportBank filled
// whole: from now on it is a bank like any other.
func (e *Engine) finishRestore(ctx context.Context, b *memory.Bank) error {
	s := b.Settings
	s.Restoring = false
	return e.store.SetBankSettings(ctx, b.ID, s)
}

// whole returns EUNAVAILABLE if bank is being restored by an import, or
// was left incomplete by one that did not finish (see ImportBank), and
// the store's error if it cannot be read.
func (e *Engine) whole(ctx context.Context, bank string) error {
	b, err := e.store.Bank(ctx, bank)
	if err != nil {
		return err
	}
	if b.Settings.Restoring {
		return memory.Errorf(memory.EUNAVAILABLE, "bank %s is incomplete: an import of it is running or was interrupted; run the import again (it replaces the bank) or delete the bank (mnemo bank delete %s)", bank, bank)
	}
	return nil
}
