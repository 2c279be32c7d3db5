package storetest

import (
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// The Webhooks group checks memory.Webhooks: a bank's webhooks read back
// as stored, oldest first, are checked on the way in, and go with their
// bank.

// testWebhook is a valid webhook id of bank.
func testWebhook(id, bank string, created time.Time) *memory.Webhook {
	return &memory.Webhook{ID: id, BankID: bank, URL: "https://hooks.example.com/" + id, Secret: "whsec-0123456789abcdef-" + id,
		Events: []string{memory.EventRetain, memory.EventForget}, CreatedAt: created}
}

// testWebhooksCreateList: webhooks list oldest first with every field;
// another bank's are not listed; a repeated id is ECONFLICT.
func testWebhooksCreateList(e *env) {
	e.newBank("a")
	e.newBank("b")
	w1, w2 := testWebhook("wh_1", "a", testTime), testWebhook("wh_2", "a", testTime.Add(time.Second))
	w2.Events = []string{memory.EventConsolidation}
	for _, w := range []*memory.Webhook{w2, w1, testWebhook("wh_3", "b", testTime)} {
		c := *w
		if err := e.s.CreateWebhook(e.ctx, &c); err != nil {
			e.t.Fatalf("CreateWebhook(%s): %v", w.ID, err)
		}
	}
	got, err := e.s.Webhooks(e.ctx, "a")
	if err != nil {
		e.t.Fatalf("Webhooks: %v", err)
	}
	noNil(e.t, "Webhooks", got)
	if len(got) != 2 {
		e.t.Fatalf("Webhooks(a) = %d webhooks, want 2", len(got))
	}
	for i, want := range []*memory.Webhook{w1, w2} {
		for _, d := range diff(got[i], want) {
			e.t.Errorf("Webhooks(a)[%d]: %s", i, d)
		}
	}
	dup := *w1
	wantCode(e.t, "CreateWebhook(a repeated id)", e.s.CreateWebhook(e.ctx, &dup), memory.ECONFLICT)
	if got, err := e.s.Webhooks(e.ctx, "a"); err != nil || len(got) != 2 {
		e.t.Errorf("after a refused create: %d webhooks, %v", len(got), err)
	}
}

// testWebhooksErr: bad webhooks are EINVALID, an unknown bank or id
// ENOTFOUND; a deleted webhook is gone and the others stay; deleting the
// bank deletes its webhooks.
func testWebhooksErr(e *env) {
	e.newBank("a")
	for name, change := range map[string]func(*memory.Webhook){
		"NoURL":        func(w *memory.Webhook) { w.URL = "" },
		"FTP":          func(w *memory.Webhook) { w.URL = "ftp://x.example.com/" },
		"ShortSecret":  func(w *memory.Webhook) { w.Secret = "short" },
		"NoEvents":     func(w *memory.Webhook) { w.Events = nil },
		"UnknownEvent": func(w *memory.Webhook) { w.Events = []string{"nope"} },
	} {
		w := testWebhook("wh_bad", "a", testTime)
		change(w)
		wantCode(e.t, "CreateWebhook("+name+")", e.s.CreateWebhook(e.ctx, w), memory.EINVALID)
	}
	wantCode(e.t, "CreateWebhook(unknown bank)", e.s.CreateWebhook(e.ctx, testWebhook("wh_x", "nope", testTime)), memory.ENOTFOUND)
	_, err := e.s.Webhooks(e.ctx, "nope")
	wantCode(e.t, "Webhooks(unknown bank)", err, memory.ENOTFOUND)
	for _, id := range []string{"wh_1", "wh_2"} {
		if err := e.s.CreateWebhook(e.ctx, testWebhook(id, "a", testTime)); err != nil {
			e.t.Fatal(err)
		}
	}
	if err := e.s.DeleteWebhook(e.ctx, "a", "wh_1"); err != nil {
		e.t.Fatalf("DeleteWebhook: %v", err)
	}
	wantCode(e.t, "DeleteWebhook(again)", e.s.DeleteWebhook(e.ctx, "a", "wh_1"), memory.ENOTFOUND)
	wantCode(e.t, "DeleteWebhook(unknown bank)", e.s.DeleteWebhook(e.ctx, "nope", "wh_2"), memory.ENOTFOUND)
	if got, _ := e.s.Webhooks(e.ctx, "a"); len(got) != 1 || got[0].ID != "wh_2" {
		e.t.Errorf("after deleting wh_1: %v, want wh_2 alone", got)
	}
	if err := e.s.DeleteBank(e.ctx, "a"); err != nil {
		e.t.Fatal(err)
	}
	e.newBank("a")
	if got, err := e.s.Webhooks(e.ctx, "a"); err != nil || len(got) != 0 {
		e.t.Errorf("a bank made again after a delete has webhooks: %v, %v", got, err)
	}
}
