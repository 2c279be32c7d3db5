package mnemo

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/retain"
)

// TranscriptSourcePrefix starts the watermark source of a retained
// transcript: "transcript:" + TranscriptOptions.Source.
const TranscriptSourcePrefix = "transcript:"

// DefaultTranscriptBatch is how many messages of a transcript make one
// document at most.
const DefaultTranscriptBatch = 40

// TranscriptOptions configure Engine.RetainTranscript.
type TranscriptOptions struct {
	// Bank receives the transcript; empty means the default bank. It
	// must exist.
	Bank string
	// Source names the transcript for its watermark (a harness and its
	// session: "claude-code:<session id>"): the same source continues
	// where it stopped.
	Source string
	// Path is the transcript file: JSON lines, appended to as the
	// session goes on.
	Path string
	// Parse reads one line of the transcript as a message; ok is false
	// for a line with nothing to remember (tool calls and their output,
	// metadata, a line it cannot read).
	Parse func(line []byte) (msg memory.Message, ok bool)
	// Batch is how many messages make one document at most; 0 means
	// DefaultTranscriptBatch.
	Batch int
	// TurnStart, when set, reports whether a message starts a turn (the
	// user's message): each turn is then a document of its own, named
	// after its first message's id ("<ItemPrefix><id>"), so that the
	// same turn read again — from a resumed session's copy of the
	// history, under another source — is the same item and adds
	// nothing.
	TurnStart func(memory.Message) bool
	// ItemPrefix starts the item of a turn's document (the harness:
	// "claude-code:").
	ItemPrefix string
	// Metadata is stored on every document made from the transcript.
	Metadata map[string]string
}

// TranscriptResult reports what RetainTranscript did.
type TranscriptResult struct {
	// From and To are the byte offsets the run started and stopped at:
	// To is the new watermark.
	From, To  int64
	Documents int
	Messages  int
	Facts     int
}

// RetainTranscript retains what a session transcript gained since the
// last time: every complete line past the transcript's watermark (source
// TranscriptSourcePrefix + o.Source, its LastItem the byte offset after
// the last line taken in) is read with o.Parse, and the messages become
// chat documents of at most o.Batch messages each (item
// "<source>@<offset of the batch's first line>"), each written in one
// transaction with the watermark moved past its last line. Retaining the
// same transcript again adds nothing; a session resumed later (the file
// grown) continues where it stopped; a last line without its newline
// waits for the next run. A file shorter than its watermark was
// rewritten and is read again from its start.
//
// An unknown bank is ENOTFOUND; an empty source or path, or no Parse, is
// EINVALID. When ctx ends, the batches written so far stay written.
func (e *Engine) RetainTranscript(ctx context.Context, o TranscriptOptions) (*TranscriptResult, error) {
	o.Bank = defaultBank(o.Bank)
	if o.Source == "" || o.Path == "" || o.Parse == nil {
		return nil, memory.Errorf(memory.EINVALID, "a transcript needs a source, a path and a parser")
	}
	if o.Batch <= 0 {
		o.Batch = DefaultTranscriptBatch
	}
	if err := e.requireBank(ctx, o.Bank); err != nil {
		return nil, err
	}
	source := TranscriptSourcePrefix + o.Source
	var from int64
	wm, err := e.store.Watermark(ctx, o.Bank, source)
	switch {
	case memory.ErrorCode(err) == memory.ENOTFOUND:
	case err != nil:
		return nil, err
	default:
		if from, err = strconv.ParseInt(wm.LastItem, 10, 64); err != nil || from < 0 {
			return nil, fmt.Errorf("transcript watermark %q is not a byte offset", wm.LastItem)
		}
	}
	fh, err := os.Open(o.Path)
	if err != nil {
		return nil, memory.Errorf(memory.EINVALID, "transcript: %v", err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() < from {
		e.log.Warn("transcript shrank: retaining it again from its start", "source", source, "size", fi.Size(), "watermark", from)
		from = 0
	}
	res := &TranscriptResult{From: from, To: from}
	if _, err := fh.Seek(from, io.SeekStart); err != nil {
		return nil, err
	}
	r := bufio.NewReaderSize(fh, 64<<10)
	var batch []memory.Message
	batchStart, off := from, from
	flush := func() error {
		mark := &memory.Watermark{BankID: o.Bank, Source: source, LastItem: strconv.FormatInt(off, 10), UpdatedAt: memory.StoreTime(e.now())}
		if len(batch) == 0 {
			if off == res.To {
				return nil
			}
			if err := e.retain.MarkAlong(ctx, o.Bank, retain.Along{Watermark: mark}); err != nil {
				return err
			}
		} else {
			item := fmt.Sprintf("%s@%d", o.Source, batchStart)
			if o.TurnStart != nil && batch[0].ID != "" {
				item = o.ItemPrefix + batch[0].ID
			}
			req := memory.RetainRequest{BankID: o.Bank, Source: memory.SourceChat, ItemID: item, Messages: batch, Metadata: o.Metadata}
			e.redact(ctx, &req) // firewall.go: a coding transcript is full of keys
			out, err := e.retain.RetainWith(ctx, req, retain.Along{Watermark: mark})
			if err == nil {
				e.emitRetained(ctx, o.Bank, out)
			}
			if memory.ErrorCode(err) == memory.EINVALID {
				// Nothing retainable in the batch: pass over it.
				e.log.Warn("transcript batch skipped", "source", source, "offset", batchStart, "err", memory.ErrorMessage(err))
				if err := e.retain.MarkAlong(ctx, o.Bank, retain.Along{Watermark: mark}); err != nil {
					return err
				}
			} else if err != nil {
				return err
			} else {
				res.Documents++
				res.Messages += len(batch)
				res.Facts += out.Facts
			}
		}
		res.To, batch, batchStart = off, nil, off
		return nil
	}
	for ctx.Err() == nil {
		line, n, tooLong, err := readLine(r, memory.MaxContentBytes)
		if err == io.EOF {
			break // the end, or a partial line: left for the next run
		}
		if err != nil {
			return res, err
		}
		off += n
		if raw := bytes.TrimSpace(line); !tooLong && len(raw) > 0 {
			if msg, ok := o.Parse(raw); ok {
				if o.TurnStart != nil && len(batch) > 0 && o.TurnStart(msg) {
					// A new turn: the batch ends before this line.
					next := off
					off -= n
					if err := flush(); err != nil {
						return res, err
					}
					off = next
				}
				batch = append(batch, msg)
			}
		}
		if len(batch) >= o.Batch {
			if err := flush(); err != nil {
				return res, err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, flush()
}
