// Command mnemo is long-term memory for AI agents on the command line: a
// thin adapter over the mnemo façade. Flags and configuration are parsed
// here and nowhere else.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
)

// Exit codes, one per error code (see exitCode).
const (
	exitOK          = 0
	exitInternal    = 1
	exitInvalid     = 2
	exitNotFound    = 3
	exitConflict    = 4
	exitUnavailable = 5
	exitPartial     = 6 // some items of an import failed; the rest landed
	exitForbidden   = 7 // a valid key whose scope does not allow the operation
	// exitInterrupted is a command stopped by SIGINT or SIGTERM before it
	// finished: 128 + SIGINT, as shells report it.
	exitInterrupted = 130
)

func main() {
	limitMemory()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one mnemo command line and returns its exit code. It is the
// whole program minus the process: tests call it directly.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd, g := newRootCmd(stdin, stdout, stderr)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	err = errors.Join(err, g.closeEngine())
	if err == nil {
		return exitOK
	}
	code, kind, msg := classify(ctx, err)
	report(stderr, g.json, kind, msg)
	return code
}

// classify returns the exit code, the error code (a memory code, or
// "partial" or "interrupted") and the message of the error a command
// ended with.
func classify(ctx context.Context, err error) (exit int, kind, msg string) {
	var pe *partialError
	var ie *interruptedError
	var ue *usageError
	switch {
	case errors.As(err, &pe):
		return exitPartial, "partial", pe.Error()
	case errors.As(err, &ie):
		return exitInterrupted, "interrupted", ie.Error()
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return exitInterrupted, "interrupted", "interrupted"
	case errors.As(err, &ue):
		return exitInvalid, memory.EINVALID, err.Error()
	}
	code := memory.ErrorCode(err)
	if code == memory.EINTERNAL {
		return exitInternal, code, "internal error: " + err.Error()
	}
	return exitCode(code), code, memory.ErrorMessage(err)
}

// report writes a command's error to stderr: one "mnemo: message" line,
// or with --json one JSON object, {"error": {"code": …, "message": …}}
// (wire.Error, the HTTP API's error shape). stdout holds only results.
func report(stderr io.Writer, asJSON bool, code, msg string) {
	if !asJSON {
		fmt.Fprintln(stderr, "mnemo:", msg)
		return
	}
	b, _ := json.Marshal(wire.Error{Error: wire.ErrorBody{Code: code, Message: msg}})
	fmt.Fprintln(stderr, string(b))
}

// exitCode maps an error code to the process exit code.
func exitCode(code string) int {
	switch code {
	case "":
		return exitOK
	case memory.EINVALID:
		return exitInvalid
	case memory.ENOTFOUND:
		return exitNotFound
	case memory.ECONFLICT:
		return exitConflict
	case memory.EUNAVAILABLE, memory.EUNAUTHORIZED:
		return exitUnavailable
	case memory.EFORBIDDEN:
		return exitForbidden
	}
	return exitInternal
}

// interruptedError reports a command stopped by a signal, saying what it
// had done.
type interruptedError struct{ msg string }

func (e *interruptedError) Error() string { return e.msg }

// partialError reports an import in which some items failed.
type partialError struct{ msg string }

func (e *partialError) Error() string { return e.msg }
