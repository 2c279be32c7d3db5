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
		time.Date(2024, 1, 1, 2, 0, 0, 0, time.FixedZone("P5", 5*3600)),
		time.Date(2023, 12, 31, 20, 0, 0, 0, time.FixedZone("M8", -8*3600)),
		time.Date(2023, 5, 8, 1, 0, 0, 0, time.FixedZone("P5", 5*3600)),
		time.Date(2023, 5, 8, 20, 0, 0, 0, time.FixedZone("M8", -8*3600)),
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		for _, r := range refs {
			tr, ok := findDate(line, tokenize(line), r)
			s := "-"
			if ok {
				s = tr.start.Format("2006-01-02T15Z07") + ".." + tr.end.Format("2006-01-02T15Z07")
			}
			fmt.Printf("%-22s %-40q %s\n", r.Format("2006-01-02T15Z07Mon"), line, s)
		}
	}
}
