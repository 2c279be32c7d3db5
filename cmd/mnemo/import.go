package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/importer"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
	"github.com/spf13/cobra"
)

func newImportCmd(g *globals) *cobra.Command {
	var format string
	var watch bool
	var poll time.Duration
	var cpuProfile, memProfile string
	cmd := &cobra.Command{
		Use:   "import FILE | - | --watch FOLDER",
		Short: "Import a JSONL chat transcript or a LoCoMo JSON file",
		Long: `Import a file of conversations.

  JSONL chat: one message per line, {"speaker": "…", "text": "…", "time": "…"}
              (optional "id" and "session"); into --bank.
  LoCoMo:     the LoCoMo JSON list of conversations; one bank per
              conversation, named by its sample_id.
  export:     a bank written by mnemo export (from any store), imported
              whole as a new bank: its own name, or --bank when given.

FILE - reads standard input (its items are named after a hash of it, so
piping the same input twice imports it once).

A malformed line, or one longer than the limit, is reported with its
number and skipped; the rest is imported, and the command exits with
status 6. The file is imported as it is read, a few megabytes of text at
a time: a LoCoMo file that turns out malformed stops the import there,
the conversations before it imported. Interrupted (SIGINT, SIGTERM), it says how many items landed
and exits 130: run it again to import the rest (items already imported
are skipped).

With --watch the argument is a folder of JSONL transcript segments: every
*.jsonl file in it is followed, each new complete line retained as one
chat document as it arrives, until the command is stopped (SIGINT or
SIGTERM: a clean stop exits 0). Progress is kept per file in the bank, so
a restarted watch resumes where it stopped and never takes a line twice.
Malformed lines are reported and skipped.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			if watch {
				if cmd.Flags().Changed("format") && importer.Format(format) != importer.FormatChat {
					return usagef("--watch follows JSONL files only, not --format %s", format)
				}
				return g.watch(cmd, path, poll) // follow.go
			}
			if cmd.Flags().Changed("poll") {
				return usagef("--poll needs --watch")
			}
			if cpuProfile != "" {
				stop, err := startCPUProfile(cpuProfile)
				if err != nil {
					return err
				}
				defer stop()
			}
			if memProfile != "" {
				defer func() {
					if err := writeHeapProfile(memProfile); err != nil {
						fmt.Fprintln(g.stderr, "memory profile:", err)
					}
				}()
			}
			in, name, err := openInput(g.stdin, path)
			if err != nil {
				return err
			}
			defer in.Close()
			br := bufio.NewReaderSize(in, 1<<20)
			if format == "" {
				f, err := detectFormat(name, br)
				if err != nil {
					return err
				}
				format = string(f)
			}
			eng, err := g.engine(cmd)
			if err != nil {
				return err
			}
			// A chat or LoCoMo file is read as it is imported
			// (mnemo.Importer): what it holds is bounded whatever the
			// file's size, so the collector may let the heap grow further
			// between cycles. An export is imported whole (ImportBank).
			if f := importer.Format(format); (f == importer.FormatChat || f == importer.FormatLoCoMo) && os.Getenv("GOGC") == "" {
				debug.SetGCPercent(importGCPercent)
			}
			opts := mnemo.ImportOptions{Progress: g.progress(g.stderr, "importing")}
			var problems []importer.Problem
			var rep *mnemo.ImportReport
			switch importer.Format(format) {
			case importer.FormatChat:
				w := eng.NewImporter(cmd.Context(), opts)
				var rerr error
				problems, rerr = importer.ScanChatJSONL(br, filepath.Base(name), g.bank, w.Add)
				rep, err = w.Finish(rerr)
			case importer.FormatExport: // export.go
				return g.importExport(cmd, br)
			case importer.FormatLoCoMo:
				opts.CreateBanks = true
				w := eng.NewImporter(cmd.Context(), opts)
				err = importer.ScanLoCoMo(br, func(c *importer.LoCoMoConversation) error {
					for _, r := range c.RetainRequests(c.ID) {
						if err := w.Add(r); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil && !w.Failed() {
					err = memory.Errorf(memory.EINVALID, "%s: %v", name, err)
				}
				rep, err = w.Finish(err)
			default:
				return usagef("unknown --format %q: use jsonl, locomo or export", format)
			}
			if err != nil && cmd.Context().Err() != nil {
				return &interruptedError{fmt.Sprintf("interrupted: %d items imported (%d facts); run the import again for the rest (imported items are skipped)", rep.Retained, rep.Facts)}
			}
			if err != nil {
				return err
			}
			if g.json {
				if err := g.printJSON(importJSON(rep, problems)); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(g.stdout, "imported %d of %d items (%d already known): %d facts\n", rep.Retained, rep.Items, rep.Duplicates, rep.Facts)
				for _, p := range problems {
					fmt.Fprintf(g.stderr, "%s:%d: skipped: %s\n", path, p.Line, p.Err)
				}
				for _, f := range rep.Failed {
					fmt.Fprintf(g.stderr, "%s: item %s (bank %s) failed: %s\n", path, f.Item, f.Bank, f.Error)
				}
			}
			if len(problems) > 0 || len(rep.Failed) > 0 {
				return &partialError{fmt.Sprintf("%d lines skipped, %d items failed; everything else was imported", len(problems), len(rep.Failed))}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "", "jsonl, locomo or export (default: from the file)")
	cmd.Flags().BoolVar(&watch, "watch", false, "follow a folder of JSONL segments until stopped")
	cmd.Flags().DurationVar(&poll, "poll", mnemo.DefaultFollowPoll, "with --watch: how often to look for new lines")
	cmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the import here")
	cmd.Flags().StringVar(&memProfile, "memprofile", "", "write a heap profile (with every allocation made) taken after the import here")
	return cmd
}

// importGCPercent is the GOGC of an import (unless GOGC is set). An
// import's live heap is bounded by the Importer's read-ahead and the
// retain pipeline's window, tens of megabytes, and it allocates its text
// many times over (tokens, facts, vectors, statement arguments): at 200
// instead of 100 the collector runs half as often. Measured on BEAM dev
// (5.5 MB, quiet machine, medians of 6): 0.565 s → 0.545 s, peak RSS
// 89 → 106 MB; 300 took 0.535 s and 128 MB.
const importGCPercent = 200

// openInput opens the file at path, or standard input for "-", and
// returns it with the name its items are named after: the path, or, for
// standard input, "stdin-" and a hash of the input (read whole), so that
// the same input imported twice is the same items.
func openInput(stdin io.Reader, path string) (io.ReadCloser, string, error) {
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, "", memory.Errorf(memory.EINVALID, "open %s: %v", path, pathErr(err))
		}
		return f, path, nil
	}
	b, err := io.ReadAll(stdin)
	if err != nil {
		return nil, "", memory.Errorf(memory.EINVALID, "read standard input: %v", err)
	}
	sum := sha256.Sum256(b)
	return io.NopCloser(bytes.NewReader(b)), "stdin-" + hex.EncodeToString(sum[:6]), nil
}

// detectFormat peeks at the first bytes of br and tells their format
// (see importer.Detect); name is the input's.
func detectFormat(name string, br *bufio.Reader) (importer.Format, error) {
	head, err := br.Peek(importer.DetectSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return "", memory.Errorf(memory.EINVALID, "read %s: %v", name, pathErr(err))
	}
	format, err := importer.Detect(name, head)
	if err != nil {
		return "", memory.Errorf(memory.EINVALID, "%s: %s; set --format", name, memory.ErrorMessage(err))
	}
	return format, nil
}

// importJSON is the wire shape of an import's report and skipped lines.
func importJSON(rep *mnemo.ImportReport, problems []importer.Problem) wire.Import {
	out := wire.Import{Report: wire.ImportReport{Items: rep.Items, Retained: rep.Retained, Duplicates: rep.Duplicates, Facts: rep.Facts}}
	for _, f := range rep.Failed {
		out.Report.Failed = append(out.Report.Failed, wire.ImportFailure{Bank: f.Bank, Item: f.Item, Error: f.Error})
	}
	for _, p := range problems {
		out.Problems = append(out.Problems, wire.Problem{Line: p.Line, Error: p.Err})
	}
	return out
}

// startCPUProfile starts a CPU profile written to path and returns the
// function that stops it and closes the file.
func startCPUProfile(path string) (func(), error) {
	f, err := createPrivateFile(path)
	if err != nil {
		return nil, memory.Errorf(memory.EINVALID, "cpu profile: %v", pathErr(err))
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
