package extract

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func TestZZExplore(t *testing.T) {
	data, _ := os.ReadFile("/tmp/explore/in.txt")
	refs := []time.Time{
		time.Date(2024, 4, 5, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 4, 5, 10, 0, 0, 0, time.UTC),
		time.Date(2024, 4, 5, 20, 0, 0, 0, time.UTC),
		time.Date(2024, 4, 5, 23, 59, 0, 0, time.UTC),
		time.Date(2024, 4, 4, 23, 0, 0, 0, time.UTC),
		time.Date(2024, 4, 6, 1, 0, 0, 0, time.UTC),
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		for _, r := range refs {
			tr, ok := parserDate(line, tokenize(line), r)
			s := "-"
			if ok {
				s = tr.start.Format("2006-01-02") + ".." + tr.end.Format("2006-01-02")
			}
			fmt.Printf("%-22s %-40q %s\n", r.Format("2006-01-02T15:04Mon"), line, s)
		}
	}
}
