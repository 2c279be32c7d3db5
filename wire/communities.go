package wire

import (
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// Community is one entity community as listed (`mnemo communities
// --json`, GET /v1/banks/{bank}/communities): a cluster of entities the
// communities pass found on the entity graph (seed 004's clusters for
// L2). Members are heaviest first, each with its weight inside the
// community; representatives are member ids, best first. Summary and
// summarized_at are empty until a model summarised it (name is then the
// model's, else the representatives' names). Lists are never null.
type Community struct {
	ID              string            `json:"id"`
	Name            string            `json:"name"`
	Summary         string            `json:"summary"`
	Size            int               `json:"size"`
	Members         []CommunityMember `json:"members"`
	Representatives []string          `json:"representatives"`
	SourceFactIDs   []string          `json:"source_fact_ids"`
	Weight          float64           `json:"weight"`
	CreatedAt       time.Time         `json:"created_at"`
	UpdatedAt       time.Time         `json:"updated_at"`
	SummarizedAt    *time.Time        `json:"summarized_at,omitempty"`
}

// CommunityMember is one entity of a [Community] with its weight there.
type CommunityMember struct {
	EntityID string  `json:"entity_id"`
	Weight   float64 `json:"weight"`
}

// NewCommunity is c's wire shape.
func NewCommunity(c *memory.Community) Community {
	out := Community{
		ID: c.ID, Name: c.Name, Summary: c.Summary, Size: len(c.Members),
		Members:         make([]CommunityMember, len(c.Members)),
		Representatives: append([]string{}, c.Representatives...),
		SourceFactIDs:   append([]string{}, c.Sources...),
		Weight:          c.Weight, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
	}
	for i, m := range c.Members {
		out.Members[i] = CommunityMember{EntityID: m.EntityID, Weight: m.Weight}
	}
	if !c.SummarizedAt.IsZero() {
		t := c.SummarizedAt
		out.SummarizedAt = &t
	}
	return out
}

// CommunityList is a bank's communities, the most members first.
type CommunityList struct {
	Communities []Community `json:"communities"`
}

// NewCommunityList is cs's wire shape; never null.
func NewCommunityList(cs []memory.Community) CommunityList {
	out := CommunityList{Communities: make([]Community, 0, len(cs))}
	for i := range cs {
		out.Communities = append(out.Communities, NewCommunity(&cs[i]))
	}
	return out
}
