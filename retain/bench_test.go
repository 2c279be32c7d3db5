package retain_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider/hashembed"
	"github.com/mnemo-ai/mnemo/retain"
)

// longSessions generates sessions of user–assistant turns shaped like an
// agent's own conversations (BEAM): short user turns, long assistant
// answers in Markdown — headings, numbered steps with bold labels opening
// on an imperative verb, code blocks — naming many capitalised things,
// from a fixed seed (about 45 names in a 3,000-word answer). It returns
// the requests and their text's size in bytes.
func longSessions(sessions, turns, words int, seed uint64) ([]memory.RetainRequest, int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	vocab := strings.Fields("the a plan budget we should use ensure keep consider and of to in for with your team project week data model step review time error code test deploy schedule")
	name := func() string { return fmt.Sprintf("Zor%c%cvan", 'a'+rng.IntN(26), 'a'+rng.IntN(26)) }
	at := time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)
	var reqs []memory.RetainRequest
	size := 0
	for s := range sessions {
		var msgs []memory.Message
		for t := range turns {
			var b strings.Builder
			n := 12
			speaker := "user"
			if t%2 == 1 {
				n, speaker = words, "assistant"
			}
			for w := range n {
				switch {
				case w%600 == 0 && w > 0:
					fmt.Fprintf(&b, "\n\n### Step %d: Configure %s Settings\n\n```yaml\nName: %s\nMode: Production\n```\n", w/600, name(), name())
				case w%200 == 0:
					fmt.Fprintf(&b, "\n%d. **%s %s**: Ensure ", w/200+1, name(), name())
				case w%100 == 50:
					b.WriteString(name() + " ")
				default:
					b.WriteString(vocab[rng.IntN(len(vocab))] + " ")
				}
			}
			msgs = append(msgs, memory.Message{Speaker: speaker, Text: b.String(), Time: at.Add(time.Duration(s*turns+t) * time.Minute)})
			size += b.Len()
		}
		reqs = append(reqs, memory.RetainRequest{BankID: "b", ItemID: fmt.Sprint("s", s), Messages: msgs})
	}
	return reqs, size
}

// BenchmarkPipeline_RetainMany_LongTurns imports sessions of long
// assistant turns (about 3,000 words each) into a fresh SQLite bank, as
// `mnemo import` does, and reports the text's MB/s and facts/s, and the
// size of the graph it makes (entities per item, links per fact).
func BenchmarkPipeline_RetainMany_LongTurns(b *testing.B) {
	reqs, size := longSessions(8, 16, 3000, 1)
	b.SetBytes(int64(size))
	ctx := context.Background()
	facts, links, ents := 0, 0, 0
	for i := range b.N {
		b.StopTimer()
		st := testutil.OpenStoreAt(b, filepath.Join(b.TempDir(), fmt.Sprint(i, ".db")))
		testutil.CreateBank(b, st, "b")
		p := retain.New(st, hashembed.New(hashembed.DefaultDimension), extract.NewHeuristic())
		batch := make([]memory.RetainRequest, len(reqs))
		copy(batch, reqs)
		b.StartTimer()
		res, errs := p.RetainMany(ctx, batch, nil)
		for k, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
			facts += res[k].Facts
			links += res[k].Links
			ents += res[k].Entities
		}
	}
	b.ReportMetric(float64(facts)/b.Elapsed().Seconds(), "facts/s")
	// The graph a long turn brings: entities per item, links per fact.
	b.ReportMetric(float64(ents)/float64(b.N*len(reqs)), "entities/item")
	b.ReportMetric(float64(links)/float64(facts), "links/fact")
}
