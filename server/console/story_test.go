package console_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// storyStart is day 0 of seed 004's coffee story.
var storyStart = time.Date(2025, time.January, 1, 9, 0, 0, 0, time.UTC)

func storyDay(d float64) time.Time { return storyStart.Add(time.Duration(d * 24 * float64(time.Hour))) }

// The coffee story's entities and the tiers seed 004's final table gives
// them on day 120 (consolidate/lifecycle_test.go replays the same days and
// explains where the table and its own rules part: tiers agree).
var storyTiers = map[string]memory.Tier{
	"coffee":      memory.TierSemantic,
	"tea":         memory.TierEpisodic,
	"Koramangala": memory.TierPattern,
	"coffee shop": memory.TierSemantic,
}

// storyCoffee and storyTea are the preference and the fact that
// superseded it on day 95.
const (
	storyCoffee = "Rajesh drinks filter coffee every morning"
	storyTea    = "Rajesh gave up coffee and switched to masala tea"
)

// writeCoffeeStory writes seed 004's coffee story into bank of s, a
// conversation on each day the seed names (the days of
// consolidate/lifecycle_test.go's replay), with the lifecycle pass run
// after each day up to day 120. The day-95 conversation contradicts
// coffee and its fact supersedes the day-0 coffee preference; it names
// coffee without counting a new mention of it, as the replay does.
func writeCoffeeStory(t *testing.T, s memory.Store, bank string) {
	t.Helper()
	ctx := context.Background()
	topic, place := memory.EntityTopic, memory.EntityPlace
	ent := func(typ memory.EntityType, name string) memory.Entity {
		return memory.Entity{ID: memory.EntityID(string(typ) + ":" + name), Name: name, Type: typ}
	}
	coffee, kora, shop, tea := ent(topic, "coffee"), ent(place, "Koramangala"), ent(place, "coffee shop"), ent(topic, "tea")
	script := map[float64][]memory.Entity{
		0: {coffee, kora}, 3: {coffee}, 8: {coffee, kora}, 15: {coffee}, 20: {coffee, kora}, 28: {coffee},
		35: {coffee, kora, shop}, 40: {shop}, 50: {shop}, 95: {tea}, 101.5: {tea},
	}
	texts := map[float64]string{0: storyCoffee, 95: storyTea}
	d := consolidate.NewDefaults()
	n := 0
	for day := 0; day <= 120; day++ {
		for _, md := range []float64{float64(day) - 0.5, float64(day)} {
			ents, ok := script[md]
			if !ok {
				continue
			}
			n++
			doc := fmt.Sprintf("conv%d", n)
			text, ok := texts[md]
			if !ok {
				text = fmt.Sprintf("Conversation on day %g about %s", md, ents[0].Name)
			}
			w := storetest.NewTestBatch(bank, doc, text)
			f := w.Facts[0]
			f.CreatedAt, f.MentionedAt, f.Category = storyDay(md), storyDay(md), memory.CategoryPreference
			for _, e := range ents {
				e.FirstSeen, e.LastSeen = storyDay(md), storyDay(md)
				w.Entities = append(w.Entities, memory.EntityUpsert{Entity: e, Mentions: 1, Episodes: 1})
				w.Refs = append(w.Refs, memory.EntityRef{FactID: f.ID, EntityID: e.ID})
			}
			if md == 95 {
				w.Contradicted = []string{coffee.ID}
				w.Refs = append(w.Refs, memory.EntityRef{FactID: f.ID, EntityID: coffee.ID})
				w.Supersede = []memory.Supersession{{FactID: storetest.TestFactID("conv1", 0), SupersededBy: f.ID, ValidTo: storyDay(md), ExpiredAt: storyDay(md)}}
			}
			if _, err := s.Write(ctx, w); err != nil {
				t.Fatalf("write %s: %v", doc, err)
			}
		}
		if _, err := consolidate.Lifecycle(ctx, s, bank, storyDay(float64(day)), d); err != nil {
			t.Fatalf("lifecycle on day %d: %v", day, err)
		}
	}
}
