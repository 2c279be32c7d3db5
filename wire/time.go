package wire

import (
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// timeLayouts are the time forms callers may send, tried in order.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
	"2006-01-02",
	"3:04 pm on 2 January, 2006", // LoCoMo's session times
}

// ParseTime parses a time a caller sends — a flag, a query parameter, an
// imported line's time — in RFC 3339 or a common date form; times without
// a zone are UTC. Anything else is EINVALID, saying which forms to use.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, memory.Errorf(memory.EINVALID, "cannot read time %q: use RFC 3339 (2023-05-08T13:56:00Z) or YYYY-MM-DD[ HH:MM]", s)
}
