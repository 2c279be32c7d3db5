package httpapi_test

import (
	"io"
	"log/slog"
	"sync"
)

// lockedWriter serialises writes: the server logs from many goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// slogTo is a JSON logger writing to w.
func slogTo(w io.Writer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(&lockedWriter{w: w}, nil))
}
