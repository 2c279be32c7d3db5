package httpapi_test

import (
	"io"
	"log/slog"
	"sync"
)

// logMu serialises the tests' log writes: the server and the engine log
// from many goroutines, often into one buffer through two loggers.
var logMu sync.Mutex

// lockedWriter writes to w under logMu.
type lockedWriter struct {
	w io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	logMu.Lock()
	defer logMu.Unlock()
	return l.w.Write(p)
}

// slogTo is a JSON logger writing to w.
func slogTo(w io.Writer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(&lockedWriter{w: w}, nil))
}
