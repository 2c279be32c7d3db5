// Command mnemo is long-term memory for AI agents on the command line: a
// thin adapter over the mnemo façade. Flags and configuration are parsed
// here and nowhere else.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mnemo-ai/mnemo/memory"
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
	var pe *partialError
	if errors.As(err, &pe) {
		fmt.Fprintln(stderr, "mnemo:", pe.Error())
		return exitPartial
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(stderr, "mnemo:", err)
		return exitInvalid
	}
	code := memory.ErrorCode(err)
	if code == memory.EINTERNAL {
		fmt.Fprintln(stderr, "mnemo: internal error:", err)
		return exitInternal
	}
	fmt.Fprintln(stderr, "mnemo:", memory.ErrorMessage(err))
	return exitCode(code)
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

// partialError reports an import in which some items failed.
type partialError struct{ msg string }

func (e *partialError) Error() string { return e.msg }
