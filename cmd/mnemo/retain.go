package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/retain"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

func newRetainCmd(g *globals) *cobra.Command {
	var speaker, at, source, item, session, role string
	var tags []string
	var async, shortTerm bool
	cmd := &cobra.Command{
		Use:   "retain [TEXT | -]",
		Short: "Remember a piece of text (from the argument, or stdin with -)",
		Long: `Remember a piece of text (from the argument, or stdin with -).

With --async the text is queued and the job id printed at once; a
background worker or "mnemo jobs run" retains it ("mnemo jobs" shows how
it went).

With --session the text is one message of a streaming chat session: it is
buffered, and the session's buffered messages are retained as one chat
document every 10 user messages (or once the session has been idle for 5
minutes, by "mnemo jobs run" or a running server).

With --short-term the text is short-term memory (seed 002): its facts
expire after the bank's short-term TTL (48 h by default). Recall finds
them like any other, marked short-term; once expired, "mnemo consolidate
--pass expire" (or a running server's consolidation) keeps those that
were recalled or are important as long-term memory and deletes the rest,
which recall already leaves out.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkRetainFlags(cmd, session); err != nil {
				return err
			}
			text, err := readText(g.stdin, args)
			if err != nil {
				return err
			}
			debug.SetGCPercent(gcPercentFor(len(text)))
			if len(text) > retain.DefaultSegmentBytes {
				capMemory(retainMemoryFor(len(text)))
			}
			req := memory.RetainRequest{BankID: g.bank, Text: text, Speaker: speaker, Source: source, ItemID: item, Tags: tags, ShortTerm: shortTerm}
			if at != "" {
				t, err := wire.ParseTime(at)
				if err != nil {
					return err
				}
				req.At = t
			}
			if session != "" {
				return g.appendMessage(cmd, session, memory.Role(role), memory.Message{ID: item, Speaker: speaker, Text: text, Time: req.At})
			}
			if async {
				eng, err := g.engineWith(cmd, oneShot)
				if err != nil {
					return err
				}
				j, err := eng.RetainAsync(cmd.Context(), req)
				if err != nil {
					return err
				}
				if g.json {
					return g.printJSON(wire.NewJob(j))
				}
				fmt.Fprintln(g.stdout, j.ID)
				return nil
			}
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			res, err := eng.Retain(cmd.Context(), req)
			if err != nil {
				return err
			}
			if g.json {
				return g.printJSON(wire.NewRetainResult(res))
			}
			if res.Duplicate {
				fmt.Fprintf(g.stdout, "already remembered (document %s): nothing to do\n", res.DocumentID)
				return nil
			}
			tier := ""
			if shortTerm {
				tier = " as short-term memory"
			}
			fmt.Fprintf(g.stdout, "remembered %d facts, %d entities%s (document %s)\n", res.Facts, res.Entities, tier, res.DocumentID)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&speaker, "speaker", "", "who said it")
	f.StringVar(&at, "at", "", "when it was said (RFC 3339 or YYYY-MM-DD[ HH:MM]); default now")
	f.StringVar(&source, "source", "", "source channel (chat, note, email, …); default api")
	f.StringVar(&item, "id", "", "external item id; default the content hash")
	f.StringSliceVar(&tags, "tags", nil, "comma-separated tags")
	f.BoolVar(&async, "async", false, "queue the retain and print the job id at once")
	f.StringVar(&session, "session", "", "append the text as one message of this streaming chat session")
	f.StringVar(&role, "role", string(memory.RoleUser), "with --session: who wrote the message, user or assistant")
	f.BoolVar(&shortTerm, "short-term", false, "remember it as short-term memory: it expires after the bank's TTL (default 48h) unless recalled or important")
	return cmd
}

// checkRetainFlags refuses flags that do not go together.
func checkRetainFlags(cmd *cobra.Command, session string) error {
	f := cmd.Flags()
	if session == "" {
		if f.Changed("role") {
			return usagef("--role needs --session")
		}
		return nil
	}
	for _, name := range []string{"async", "source", "tags", "short-term"} {
		if f.Changed(name) {
			return usagef("--%s cannot be used with --session", name)
		}
	}
	return nil
}

// appendMessage appends one message to a streaming session and prints
// the session's state (and what an extraction it triggered retained).
func (g *globals) appendMessage(cmd *cobra.Command, session string, role memory.Role, msg memory.Message) error {
	eng, err := g.engineWith(cmd, oneShot)
	if err != nil {
		return err
	}
	res, err := eng.AppendMessage(cmd.Context(), g.bank, session, role, msg)
	if err != nil {
		return err
	}
	st := res.State
	if g.json {
		return g.printJSON(wire.NewSession(st, res.Retained, res.Dropped, res.ExtractError))
	}
	for _, r := range res.Retained {
		if r.Duplicate {
			fmt.Fprintf(g.stdout, "session %s: already remembered (document %s)\n", session, r.DocumentID)
		} else {
			fmt.Fprintf(g.stdout, "session %s: remembered %d facts, %d entities (document %s)\n", session, r.Facts, r.Entities, r.DocumentID)
		}
	}
	if res.Dropped > 0 {
		fmt.Fprintf(g.stdout, "session %s: nothing to remember in %d messages\n", session, res.Dropped)
	}
	if res.ExtractError != "" {
		fmt.Fprintf(g.stderr, "mnemo: session %s: extraction failed, the messages stay buffered: %s\n", session, res.ExtractError)
	}
	fmt.Fprintf(g.stdout, "session %s: %d messages buffered (%d from the user)\n", session, st.Messages, st.UserMessages)
	return nil
}

// gcHeadroom is the garbage the Go heap may gather between two
// collections while one long document is retained.
const gcHeadroom = 48 << 20

// gcPercentFor is the GOGC for retaining a text of n bytes. The text is
// live for the whole retain (it is the document's content and every
// segment is cut from it), and GOGC 100 lets the heap grow to twice what
// is live: for a 50 MB document, garbage the size of the text on top of
// the segments' own. The GOGC returned keeps the headroom near
// gcHeadroom over the text and the segments in flight (a few
// retain.DefaultSegmentBytes, about 100 times their text each): 100 for
// a text of one segment, 60 at 5 MB, 39 at 50 MB, never under 20. Measured on a
// 5 MB document, medians of 3: 295 MB of peak RSS with GOGC 100, 270 MB
// with this, for the same CPU within the noise (docs/scale.md, "Bounded
// memory").
func gcPercentFor(n int) int {
	if n <= retain.DefaultSegmentBytes {
		return 100 // retained in one piece
	}
	live := n + 3*100*retain.DefaultSegmentBytes
	return max(20, min(100, 100*gcHeadroom/live))
}

// segmentsMemory is the Go memory a retain in segments needs besides its
// text: the segments in flight (three of retain.DefaultSegmentBytes,
// about 15 MB each), gcHeadroom, the runtime's own and the engine's.
const segmentsMemory = 100 << 20

// retainMemoryFor is the ceiling of the soft memory limit (capMemory)
// while a text of n bytes, retained in segments, is held: the text and
// segmentsMemory. Without it the runtime kept up to 40 MB of freed pages
// over a 50 MB document's heap; with it, and the SQLite store's cache
// of a segment, the whole process stays under 300 MB (docs/scale.md,
// "Bounded memory").
func retainMemoryFor(n int) int64 {
	return int64(n) + segmentsMemory
}

// readText returns the text argument, or stdin when it is "-" or absent:
// at most memory.MaxDocumentBytes of it (a document that long is retained
// in segments). The text is read into one buffer sized to a regular
// file's length, never copied: a 50 MB document is held once.
func readText(stdin io.Reader, args []string) (string, error) {
	if len(args) == 1 && args[0] != "-" {
		return args[0], nil
	}
	var sb strings.Builder
	if f, ok := stdin.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() <= memory.MaxDocumentBytes {
			sb.Grow(int(st.Size()) + 1) // + 1: the read that finds the end
		}
	}
	if _, err := io.Copy(&sb, io.LimitReader(stdin, memory.MaxDocumentBytes+1)); err != nil {
		return "", fmt.Errorf("read stdin: %w", err)
	}
	if sb.Len() > memory.MaxDocumentBytes {
		return "", memory.Errorf(memory.EINVALID, "input is larger than %d bytes: split it into smaller items", memory.MaxDocumentBytes)
	}
	text := sb.String()
	if strings.TrimSpace(text) == "" && len(args) == 0 {
		return "", usagef("nothing to remember: give TEXT or pipe it with -")
	}
	return text, nil
}
