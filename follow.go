package mnemo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/importer"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/retain"
)

// DefaultFollowPoll is how often Follow looks for new lines.
const DefaultFollowPoll = time.Second

// FollowSourcePrefix starts the watermark source of a followed file:
// "watch:" + the file's name in the folder.
const FollowSourcePrefix = "watch:"

// FollowOptions configure Engine.Follow.
type FollowOptions struct {
	// Bank receives the lines; empty means the default bank (created on
	// first use). Any other bank must exist.
	Bank string
	// Dir is the folder of JSONL transcript segments to follow: every
	// "*.jsonl" file directly in it (not in subfolders, not hidden).
	Dir string
	// Poll is how often the folder is looked at again; 0 means
	// DefaultFollowPoll, negative means one pass only: Follow takes in what
	// is there and returns.
	Poll time.Duration
	// OnLine, when set, is called for every line taken in or skipped, in
	// order, from Follow's goroutine.
	OnLine func(FollowEvent)
}

// FollowEvent is one line Follow took in or skipped.
type FollowEvent struct {
	// File is the file's name in the folder.
	File string
	// Offset is the byte offset of the line's start in the file.
	Offset int64
	// Result is what retaining the line did (Duplicate when it was known).
	Result *memory.RetainResult
	// Err, when set, is why the line was skipped: not a valid message
	// (malformed JSON, no text, a bad time, too long) or nothing to
	// remember in it. Its position is recorded as the watermark's
	// LastError and the follower goes on with the next line.
	Err error
}

// Follow follows a folder of JSONL transcript segments (seed 004's
// watcher), retaining each new complete line as it arrives, until ctx
// ends; it then returns nil. Lines have the format `mnemo import` reads:
// {"speaker": …, "text": …, "time": …} with optional "id" and "session".
// Each line becomes one chat document (source "chat", item
// "<file>@<byte offset>", metadata file and, when the line gives one,
// session). A last line without its newline yet is left for a later pass.
//
// Progress is kept per file in a watermark (source "watch:<file>", see
// FollowSourcePrefix) whose LastItem is the byte offset after the last
// line taken in. It is written in the same transaction as the line's
// document, so after a restart Follow resumes exactly where it stopped
// and never retains a line twice (the content-hash dedup is a second
// guard). A malformed line is skipped, reported through OnLine and the
// log, and recorded as the watermark's LastError ("<file> at byte <n>:
// …"), which stays until the next skipped line replaces it.
//
// Segments are taken to grow only by appending. A file shorter than its
// watermark was rewritten: it is reported and followed again from its
// start; a line at an offset seen before replaces that offset's document
// when it differs, as importing a changed file again does.
//
// Follow refuses a folder that does not exist (EINVALID) and an unknown
// bank (ENOTFOUND) at once. It returns nil once ctx ends, even before its
// first pass (a watch stopped between two calls). Later failures (the folder vanishing, the
// database busy) are logged and retried on the next pass. Run one follower
// per folder and bank.
func (e *Engine) Follow(ctx context.Context, opts FollowOptions) error {
	opts.Bank = defaultBank(opts.Bank)
	if opts.Poll == 0 {
		opts.Poll = DefaultFollowPoll
	}
	if fi, err := os.Stat(opts.Dir); err != nil || !fi.IsDir() {
		if err == nil {
			err = errors.New("not a folder")
		}
		return memory.Errorf(memory.EINVALID, "follow %s: %v", opts.Dir, err)
	}
	if err := e.requireBank(ctx, opts.Bank); err != nil {
		if ctx.Err() != nil {
			return nil // stopped before it began: a clean stop, not a failure
		}
		return err
	}
	f := &follower{e: e, opts: opts, files: map[string]*followed{}}
	var t *time.Timer
	for ctx.Err() == nil {
		if err := f.pass(ctx); err != nil && ctx.Err() == nil {
			e.log.Warn("follow", "dir", opts.Dir, "err", err)
		}
		if opts.Poll < 0 {
			break
		}
		if t == nil {
			t = time.NewTimer(opts.Poll)
			defer t.Stop()
		} else {
			t.Reset(opts.Poll)
		}
		select {
		case <-ctx.Done():
		case <-t.C:
		}
	}
	return nil
}

// follower is one Follow call's state.
type follower struct {
	e     *Engine
	opts  FollowOptions
	files map[string]*followed // by file name
}

// followed is where a file's follower stands.
type followed struct {
	offset  int64  // after the last line taken in (or blank line passed)
	lastErr string // the watermark's LastError
}

// pass takes in the new lines of every file in the folder, in name order.
func (f *follower) pass(ctx context.Context) error {
	entries, err := os.ReadDir(f.opts.Dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, ent := range entries {
		name := ent.Name()
		if !ent.Type().IsRegular() || !strings.HasSuffix(name, ".jsonl") || strings.HasPrefix(name, ".") {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		if err := f.file(ctx, name); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// state returns where a file stands, from its watermark the first time.
func (f *follower) state(ctx context.Context, name string) (*followed, error) {
	if st, ok := f.files[name]; ok {
		return st, nil
	}
	st := &followed{}
	wm, err := f.e.store.Watermark(ctx, f.opts.Bank, FollowSourcePrefix+name)
	switch {
	case memory.ErrorCode(err) == memory.ENOTFOUND:
	case err != nil:
		return nil, err
	default:
		st.lastErr = wm.LastError
		if st.offset, err = strconv.ParseInt(wm.LastItem, 10, 64); err != nil || st.offset < 0 {
			return nil, fmt.Errorf("watermark %q is not a byte offset", wm.LastItem)
		}
	}
	f.files[name] = st
	return st, nil
}

// maxFollowLine bounds one line, as `mnemo import` does.
const maxFollowLine = memory.MaxContentBytes

// file takes in the complete lines of one file past its watermark.
func (f *follower) file(ctx context.Context, name string) error {
	st, err := f.state(ctx, name)
	if err != nil {
		return err
	}
	fh, err := os.Open(filepath.Join(f.opts.Dir, name))
	if err != nil {
		return err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return err
	}
	if fi.Size() < st.offset {
		f.e.log.Warn("followed file shrank: following it again from its start", "file", name, "size", fi.Size(), "watermark", st.offset)
		st.offset = 0
	}
	if fi.Size() == st.offset {
		return nil
	}
	if _, err := fh.Seek(st.offset, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReaderSize(fh, 64<<10)
	for ctx.Err() == nil {
		line, n, tooLong, err := readLine(r, maxFollowLine)
		if err == io.EOF {
			return nil // nothing more, or a partial line: wait for its newline
		}
		if err != nil {
			return err
		}
		start, next := st.offset, st.offset+n
		raw := bytes.TrimSpace(line)
		switch {
		case tooLong:
			err = f.skip(ctx, name, st, start, next, memory.Errorf(memory.EINVALID, "line is longer than %d bytes", maxFollowLine))
		case len(raw) == 0:
			// A blank line: passed over; the watermark moves past it with
			// the next line taken in.
			st.offset = next
		default:
			err = f.line(ctx, name, st, start, next, raw)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readLine reads one line, newline included, keeping at most max+1 bytes
// of it (tooLong then tells that the rest was dropped) and returning how
// many bytes it spanned. At the end of the file it returns io.EOF, with
// the partial line's length in n.
func readLine(r *bufio.Reader, max int) (line []byte, n int64, tooLong bool, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		n += int64(len(frag))
		if !tooLong {
			if len(line)+len(frag) > max+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, frag...)
			}
		}
		if err != bufio.ErrBufferFull {
			return line, n, tooLong, err
		}
	}
}

// line retains one line and moves the watermark past it in the same
// write. A line that is not a valid message, or holds nothing to
// remember, is skipped. Any other failure is returned with nothing moved:
// the line is tried again on the next pass.
func (f *follower) line(ctx context.Context, name string, st *followed, start, next int64, raw []byte) error {
	reqs, problems, err := importer.ChatJSONL(bytes.NewReader(raw), name, f.opts.Bank)
	if err == nil && len(reqs) != 1 {
		msg := "not a message"
		if len(problems) > 0 {
			msg = problems[0].Err
		}
		err = memory.Errorf(memory.EINVALID, "%s", msg)
	}
	if err != nil {
		return f.skip(ctx, name, st, start, next, err)
	}
	req := reqs[0]
	req.ItemID = fmt.Sprintf("%s@%d", name, start)
	req.Metadata = map[string]string{"file": name}
	if s := lineSession(raw); s != "" {
		req.Metadata["session"] = s
	}
	f.e.redact(ctx, &req)
	res, err := f.e.retain.RetainWith(ctx, req, retain.Along{Watermark: f.watermark(name, st, next)})
	if err == nil {
		f.e.emitRetained(ctx, req.BankID, res)
	}
	if memory.ErrorCode(err) == memory.EINVALID {
		return f.skip(ctx, name, st, start, next, err)
	}
	if err != nil {
		return err
	}
	st.offset = next
	if f.opts.OnLine != nil {
		f.opts.OnLine(FollowEvent{File: name, Offset: start, Result: res})
	}
	return nil
}

// lineSession is the "session" a line gives, if any.
func lineSession(raw []byte) string {
	var l struct {
		Session string `json:"session"`
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return ""
	}
	return l.Session
}

func (f *follower) watermark(name string, st *followed, next int64) *memory.Watermark {
	return &memory.Watermark{
		BankID: f.opts.Bank, Source: FollowSourcePrefix + name, LastItem: strconv.FormatInt(next, 10),
		LastError: st.lastErr, UpdatedAt: f.e.now().UTC().Truncate(time.Microsecond),
	}
}

// skip passes over a line that cannot be retained: the watermark moves
// past it with the error recorded, and the line is reported.
func (f *follower) skip(ctx context.Context, name string, st *followed, start, next int64, cause error) error {
	lastErr := fmt.Sprintf("%s at byte %d: %s", name, start, memory.ErrorMessage(cause))
	if memory.ErrorCode(cause) == memory.EINTERNAL {
		lastErr = fmt.Sprintf("%s at byte %d: %v", name, start, cause)
	}
	prev := st.lastErr
	st.lastErr = lastErr
	if err := f.e.retain.MarkAlong(ctx, f.opts.Bank, retain.Along{Watermark: f.watermark(name, st, next)}); err != nil {
		st.lastErr = prev
		return err
	}
	st.offset = next
	f.e.log.Warn("follow: line skipped", "file", name, "offset", start, "err", memory.ErrorMessage(cause))
	if f.opts.OnLine != nil {
		f.opts.OnLine(FollowEvent{File: name, Offset: start, Err: cause})
	}
	return nil
}
