package console

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
	"github.com/mnemo-ai/mnemo/wire"
)

// timeline is a bank's facts over time with filters and the as-of
// slider.
func (c *Console) timeline(w http.ResponseWriter, r *http.Request) error {
	bank, err := c.bank(r, httpapi.ScopeRead)
	if err != nil {
		return err
	}
	f, err := parseTimeline(r)
	if err != nil {
		return err
	}
	tl, err := c.eng.Timeline(r.Context(), bank, f.query())
	if err != nil {
		return err
	}
	return c.render(w, r, "timeline", map[string]any{"V": c.view(r, bank, "timeline"), "T": tl, "F": f, "Slider": slider(tl),
		"Kinds": []memory.FactKind{memory.KindWorld, memory.KindExperience}, "Categories": categories,
		"Sources": []string{memory.SourceChat, memory.SourceNote, memory.SourceEmail, memory.SourceVoice, memory.SourceAPI}})
}

// categories are the fact categories the timeline filters by.
var categories = []memory.Category{memory.CategoryPersonal, memory.CategoryProject, memory.CategoryDecision,
	memory.CategoryPreference, memory.CategoryEvent, memory.CategoryContact, memory.CategoryTechnical}

// timelineForm is the timeline's filters as the form sends them.
type timelineForm struct {
	Kind, Category, Tag, Speaker, Source string
	AsOf                                 time.Time // zero: now
}

// parseTimeline reads the timeline's filters: asof is Unix seconds (the
// slider) or a time wire.ParseTime reads.
func parseTimeline(r *http.Request) (timelineForm, error) {
	q := r.URL.Query()
	f := timelineForm{Kind: q.Get("kind"), Category: q.Get("category"), Tag: strings.TrimSpace(q.Get("tag")), Speaker: strings.TrimSpace(q.Get("speaker")), Source: strings.TrimSpace(q.Get("source"))}
	if v := strings.TrimSpace(q.Get("asof")); v != "" && v != "now" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			f.AsOf = time.Unix(n, 0).UTC()
		} else if f.AsOf, err = wire.ParseTime(v); err != nil {
			return f, invalid("asof", err)
		}
	}
	return f, nil
}

func (f timelineForm) query() mnemo.TimelineQuery {
	q := mnemo.TimelineQuery{AsOf: f.AsOf, Facts: memory.FactQuery{Limit: timelineFacts, Speaker: f.Speaker, Source: f.Source}}
	if f.Kind != "" {
		q.Facts.Kinds = []memory.FactKind{memory.FactKind(f.Kind)}
	}
	if f.Category != "" {
		q.Facts.Categories = []memory.Category{memory.Category(f.Category)}
	}
	if f.Tag != "" {
		q.Facts.Tags = []string{f.Tag}
	}
	return q
}

// sliderView is the as-of slider: Unix seconds.
type sliderView struct {
	Min, Max, Value int64
	Enabled         bool
}

func slider(tl *mnemo.Timeline) sliderView {
	if tl.Oldest.IsZero() {
		return sliderView{}
	}
	s := sliderView{Min: tl.Oldest.Unix(), Max: tl.Newest.Unix() + 1, Enabled: true}
	s.Value = s.Max
	if !tl.AsOf.IsZero() {
		s.Value = min(max(tl.AsOf.Unix(), s.Min), s.Max)
	}
	return s
}
