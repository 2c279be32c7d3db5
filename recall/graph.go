package recall

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/mnemo-ai/mnemo/memory"
	"golang.org/x/sync/errgroup"
)

// Graph expansion tunables.
const (
	// DefaultGraphEntities bounds how many entities one recall expands.
	DefaultGraphEntities = 6
	// linkWeight scales what a seed passes to a linked fact, per link kind.
	temporalLinkWeight = 0.6
	entityLinkWeight   = 0.4
)

// graph is the graph strategy: one hop from the seed facts through their
// links (conversation neighbours, entity chains) and through the entities
// they and the query mention, each entity weighted by its rarity (IDF:
// rare entities make stronger connections; seed 000).
func (p *Pipeline) graph(ctx context.Context, q memory.Query, a *analysis, fused []candidate) ([]memory.Hit, error) {
	n := min(len(fused), DefaultGraphSeeds)
	score := map[string]float64{}
	add := func(id string, v float64) { score[id] += v }
	if n > 0 {
		seeds := make([]string, n)
		seedW := map[string]float64{}
		top := fused[0].score
		for i := 0; i < n; i++ {
			seeds[i] = fused[i].id
			seedW[fused[i].id] = fused[i].score / top
		}
		// The two hops are independent: the links and the entity
		// expansion run side by side; the links add after the entities.
		var links []memory.Link
		g, gctx := errgroup.WithContext(ctx)
		g.Go(func() (err error) {
			if links, err = p.Store.Links(gctx, q.BankID, seeds, memory.LinkTemporal, memory.LinkEntity); err != nil {
				return fmt.Errorf("graph links: %w", err)
			}
			return nil
		})
		g.Go(func() error {
			refs, err := p.Store.EntityRefs(gctx, q.BankID, seeds)
			if err != nil {
				return fmt.Errorf("graph entity refs: %w", err)
			}
			entW := map[string]float64{}
			for _, e := range a.entities {
				entW[e.ID] += 1
			}
			for _, r := range refs {
				entW[r.EntityID] += seedW[r.FactID]
			}
			return p.expandEntities(gctx, q, entW, add)
		})
		if err := g.Wait(); err != nil {
			return nil, err
		}
		for _, l := range links {
			kw := temporalLinkWeight
			if l.Kind == memory.LinkEntity {
				kw = entityLinkWeight
			}
			add(l.ToID, seedW[l.FromID]*l.Weight*kw)
		}
	} else if len(a.entities) > 0 {
		entW := map[string]float64{}
		for _, e := range a.entities {
			entW[e.ID] = 1
		}
		if err := p.expandEntities(ctx, q, entW, add); err != nil {
			return nil, err
		}
	}
	hits := make([]memory.Hit, 0, len(score))
	for id, s := range score {
		hits = append(hits, memory.Hit{ID: id, Score: s})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	if len(hits) > p.Candidates {
		hits = hits[:p.Candidates]
	}
	return hits, nil
}

// expandEntities adds, for the most promising entities, the facts that
// mention them, weighted by the entity's weight times its IDF.
func (p *Pipeline) expandEntities(ctx context.Context, q memory.Query, entW map[string]float64, add func(string, float64)) error {
	if len(entW) == 0 {
		return nil
	}
	ids := make([]string, 0, len(entW))
	for id := range entW {
		ids = append(ids, id)
	}
	ents, err := p.Store.Entities(ctx, q.BankID, ids)
	if err != nil {
		return fmt.Errorf("graph entities: %w", err)
	}
	type we struct {
		id string
		w  float64
	}
	var ranked []we
	for _, e := range ents {
		// An entity mentioned more often than the fan-out (a chat's
		// speakers, say) connects everything to everything: its newest
		// facts would be an arbitrary sample, noise rather than evidence.
		if e.MentionCount > DefaultEntityFanout {
			continue
		}
		ranked = append(ranked, we{e.ID, entW[e.ID] * entityIDF(e.MentionCount)})
	}
	sort.Slice(ranked, func(i, j int) bool {
		if ranked[i].w != ranked[j].w {
			return ranked[i].w > ranked[j].w
		}
		return ranked[i].id < ranked[j].id
	})
	if len(ranked) > DefaultGraphEntities {
		ranked = ranked[:DefaultGraphEntities]
	}
	wanted := make([]string, len(ranked))
	for i, e := range ranked {
		wanted[i] = e.id
	}
	byEntity, err := p.Store.FactsByEntities(ctx, q.BankID, wanted, DefaultEntityFanout)
	if err != nil {
		return fmt.Errorf("graph entity facts: %w", err)
	}
	for _, e := range ranked {
		for _, id := range byEntity[e.id] {
			add(id, e.w)
		}
	}
	return nil
}

// entityIDF weighs an entity by rarity: 1 for a single mention, falling
// logarithmically as mentions grow.
func entityIDF(mentions int) float64 {
	return 1 / (1 + math.Log1p(float64(max(mentions, 1)-1)))
}
