package wire_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/wire"
)

// TestKeys pins every shape's JSON keys: scripts rely on them, so a key
// renamed or removed must fail here and be a deliberate change. Adding a
// key means adding it to the list.
func TestKeys(t *testing.T) {
	for _, c := range []struct {
		v    any
		keys string
	}{
		{wire.Bank{}, "name embedder dimension created_at settings"},
		{wire.BankList{}, "banks"},
		{wire.Deleted{}, "deleted"},
		{wire.Stats{}, "active archived bank chunks documents entities facts links quarantined redacted relations superseded"},
		{wire.RetainResult{}, "document_id duplicate replaced facts entities links outcomes"},
		{wire.Job{}, "id bank kind status attempts error result created_at updated_at"},
		{wire.JobsRun{}, "jobs sessions"},
		{wire.Session{}, "session messages user_messages first_seq last_seq last_at retained dropped extract_error"},
		{wire.FollowLine{}, "file offset result error"},
		{wire.Recall{}, "standing observations results context"},
		{wire.Observation{}, "id text kind score facts"},
		{wire.RecallResult{}, "id text score occurred_at speaker explain status previously tier"},
		{wire.StrategyScore{}, "rank score"},
		{wire.Previous{}, "id text speaker valid_to"},
		{wire.Import{}, "report problems"},
		{wire.ImportReport{}, "items retained duplicates facts failed"},
		{wire.ImportFailure{}, "bank item error"},
		{wire.Problem{}, "line error"},
		{wire.ImportBank{}, "bank records counts"},
		{wire.Key{}, "id bank scope name created_at expires_at revoked_at"},
		{wire.CreatedKey{}, "key id bank scope name created_at expires_at"},
		{wire.KeyList{}, "keys"},
		{wire.Block{}, "bank name label value chars max_chars reads writes last_read_at created_at updated_at"},
		{wire.BlockList{}, "blocks"},
		{wire.RecallPage{}, "bank observations results tokens offset next_offset"},
		{wire.Retained{}, "bank stored pending result message"},
		{wire.Forget{}, "bank dry_run facts counts record"},
		{wire.ForgetFact{}, "id text"},
		{wire.ForgetCounts{}, "facts links refs entities relations relations_shrunk observations reconsolidate chunks documents dreams"},
		{wire.ForgetSelector{}, "ids query entity document from to"},
		{wire.ForgetRecord{}, "id at actor selector counts"},
		{wire.Fact{}, "id seq text speaker kind category status confidence importance sensitivity tags document_id source_ref evidence occurred_start occurred_end mentioned_at valid_from valid_to created_at expired_at expires_at superseded_by access_count reinforcement_count"},
		{wire.FactDetail{}, "fact previous next"},
		{wire.FactPage{}, "facts next"},
		{wire.StatusChange{}, "changed status"},
		{wire.Entity{}, "id name type aliases first_seen last_seen mention_count episode_count salience tier contradicted"},
		{wire.EntityPage{}, "entities next"},
		{wire.Relation{}, "id subject subject_name predicate object object_name confidence fact_ids valid_from valid_to created_at expired_at current"},
		{wire.About{}, "entity facts relations"},
		{wire.FactOutcome{}, "fact_id text action of"},
		{wire.CreateBank{}, "name"},
		{wire.BankSettings{}, "skepticism literalism empathy mission background consolidation secret_allow"},
		{wire.UpdateBank{}, "skepticism literalism empathy mission background consolidation secret_allow"},
		{wire.ConsolidationSetting{}, "name value kind overridden"},
		{wire.ConsolidationSettings{}, "settings"},
		{wire.Retain{}, "text speaker occurred_at source item_id tags async short_term"},
		{wire.RecallRequest{}, "query limit budget format kinds tags categories from to as_of history archived sensitive explain"},
		{wire.Document{}, "id bank source item_id content_hash content metadata tags occurred_at created_at chunks"},
		{wire.Chunk{}, "id index text"},
		{wire.JobList{}, "jobs"},
		{wire.Webhook{}, "id bank url events secret created_at"},
		{wire.WebhookList{}, "webhooks"},
		{wire.CreateWebhook{}, "url events"},
		{wire.Health{}, "status"},
		{wire.ForgetRequest{}, "ids query limit entity document from to dry_run"},
		{wire.ForgetLog{}, "records"},
		{wire.FactIDs{}, "ids"},
		{wire.InvalidateFacts{}, "ids reason"},
		{wire.UpsertEntity{}, "name type aliases"},
		{wire.AddRelation{}, "subject predicate object confidence valid_from fact_ids"},
		{wire.RelationList{}, "relations"},
		{wire.WriteBlock{}, "value max_chars label"},
		{wire.AppendBlock{}, "text"},
		{wire.ReplaceBlock{}, "old new"},
		{wire.CreateKey{}, "bank scope name expires_at"},
		{wire.Error{}, "error"},
		{wire.ErrorBody{}, "code message"},
		{wire.Run{}, "id bank pass status reason started_at finished_at counts llm_calls tokens error"},
		{wire.RunList{}, "runs"},
		{wire.Tiers{}, "L0 L1 L2 low_salience early_promotion"},
		{wire.StoredObservation{}, "id text kind status source_fact_ids evidence_count history access_count last_accessed created_at updated_at"},
		{wire.ObservationChange{}, "previous changed_at reason"},
		{wire.ObservationList{}, "observations"},
		{wire.Consolidate{}, "pass"},
		{wire.Dream{}, "id bridge insight source_fact_ids created_at"},
		{wire.DreamList{}, "dreams"},
		{wire.ObservationIDs{}, "ids"},
		{wire.Restored{}, "facts observations"},
		{wire.Context{}, "bank budget sections"},
		{wire.ContextSection{}, "name items"},
		{wire.ContextItem{}, "kind id name label text scopes previously"},
		{wire.Directive{}, "id bank text scopes created_at updated_at"},
		{wire.DirectiveList{}, "directives"},
		{wire.ReflectRequest{}, "question as_of max_steps max_tokens"},
		{wire.Reflect{}, "answer memory_ids trace standing llm_calls input_tokens output_tokens"},
		{wire.ReflectStep{}, "tool arguments memory_ids error"},
		{wire.Standing{}, "id question answer memory_ids pinned_at answered_at fresh stale"},
		{wire.StandingList{}, "questions"},
		{wire.PinQuestion{}, "question"},
		{wire.Community{}, "id name summary size members representatives source_fact_ids weight created_at updated_at summarized_at"},
		{wire.CommunityMember{}, "entity_id weight"},
		{wire.CommunityList{}, "communities"},
	} {
		typ := reflect.TypeOf(c.v)
		var got []string
		for f := range typ.Fields() {
			tag, ok := f.Tag.Lookup("json")
			name, _, _ := strings.Cut(tag, ",")
			if !ok || name == "" || name == "-" {
				t.Errorf("%s.%s has no explicit json key", typ.Name(), f.Name)
				continue
			}
			got = append(got, name)
		}
		if want := strings.Fields(c.keys); !slices.Equal(got, want) {
			t.Errorf("%s keys = %v, want %v", typ.Name(), got, want)
		}
	}
}

// TestStatsKeysSorted keeps Stats' keys in alphabetical order, the order
// `mnemo stats --json` printed before the shape had a type.
func TestStatsKeysSorted(t *testing.T) {
	typ := reflect.TypeOf(wire.Stats{})
	var keys []string
	for f := range typ.Fields() {
		keys = append(keys, f.Tag.Get("json"))
	}
	if !slices.IsSorted(keys) {
		t.Errorf("Stats keys %v are not sorted", keys)
	}
}
