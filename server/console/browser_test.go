package console_test

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/consolidate"
	"github.com/mnemo-ai/mnemo/internal/testutil"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/console"
	"github.com/mnemo-ai/mnemo/server/httpapi"
)

// shotsDir is where the browser test writes its screenshots; empty is a
// temporary directory. MNEMO_CONSOLE_SHOTS says the same.
var shotsDir = flag.String("console.shots", "", "directory for the console's screenshots (default: a temporary one; env MNEMO_CONSOLE_SHOTS)")

// chromium returns the path of a headless-capable Chromium: MNEMO_CHROMIUM,
// else chromium, chromium-browser or google-chrome on PATH. Without one
// the test is skipped, unless CI is set: then it fails.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("MNEMO_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH: CI needs it for the console's browser tests (apt-get install chromium)")
	}
	t.Skip("no chromium on PATH (apt-get install chromium, or set MNEMO_CHROMIUM)")
	return ""
}

// browser is a headless tab on a console server, recording the console
// errors and the dialogs the pages open.
type browser struct {
	t     *testing.T
	ctx   context.Context
	base  string
	shots string

	mu      sync.Mutex
	errs    []string
	dialogs []string
}

func newBrowser(t *testing.T, base string) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.WindowSize(1280, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx, base: base, shots: *shotsDir}
	if b.shots == "" {
		b.shots = os.Getenv("MNEMO_CONSOLE_SHOTS")
	}
	if b.shots == "" {
		b.shots = t.TempDir()
	}
	if err := os.MkdirAll(b.shots, 0o755); err != nil {
		t.Fatal(err)
	}
	msgs := chromedp.Console(ctx)
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				b.mu.Lock()
				b.errs = append(b.errs, m.String())
				b.mu.Unlock()
			}
		}
	}()
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.dialogs = append(b.dialogs, string(ev.Type)+": "+ev.Message)
			b.mu.Unlock()
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	return b
}

// do runs steps, failing the test on an error.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		html, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body.outerHTML`))
		b.t.Fatalf("%s: %v\npage:\n%s", what, err, html)
	}
}

// open loads a console page and waits for its view (a selector).
func (b *browser) open(path, view string) {
	b.t.Helper()
	b.do("open "+path, chromedp.Navigate(b.base+path), chromedp.WaitVisible(chromedp.CSS(view)), b.settled())
}

// settled waits until the page's requests are done and their content is
// in place (htmx processed it: its forms and buttons work).
func (b *browser) settled() chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(`#view[aria-busy="false"]`))
}

// eval evaluates a JavaScript expression.
func eval[T any](b *browser, js string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// clean fails the test if a page wrote a console error or opened a
// dialog since the last call, and forgets them.
func (b *browser) clean(step string) {
	b.t.Helper()
	// Let late messages (a failed resource, a CSP report) arrive.
	b.do("settle", chromedp.Sleep(150*time.Millisecond))
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.errs {
		b.t.Errorf("%s: console error: %s", step, e)
	}
	for _, d := range b.dialogs {
		b.t.Errorf("%s: a dialog opened: %s", step, d)
	}
	b.errs, b.dialogs = nil, nil
}

// forgetErrors drops the console errors recorded so far (an expected 401
// or 404 shows as a failed resource).
func (b *browser) forgetErrors() {
	b.do("settle", chromedp.Sleep(150*time.Millisecond))
	b.mu.Lock()
	b.errs = nil
	b.mu.Unlock()
}

// shot writes a full-page screenshot name.png.
func (b *browser) shot(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(b.shots, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// login types key into the sign-in form the console shows on a 401.
func (b *browser) login(key string) {
	b.t.Helper()
	b.do("sign in", chromedp.Navigate(b.base+"/ui/"), chromedp.WaitVisible(chromedp.CSS("#key")),
		chromedp.SendKeys(chromedp.CSS("#key"), key), chromedp.Click(chromedp.CSS("#key-submit")),
		chromedp.WaitVisible(chromedp.CSS(`[data-view="banks"]`)), b.settled())
	b.forgetErrors() // the first request's 401
}

// browserEnv is the server the browser test drives: bank rajesh holds seed
// 004's coffee story (written through the store, the lifecycle pass run
// each day), bank demo a few retained facts (one of them markup), a run
// and a failed job, bank other one fact; keys: admin for every bank, read
// of demo, write of other.
type browserEnv struct {
	eng                       *mnemo.Engine
	srv                       *httptest.Server
	admin, readDemo, keyOther string
	demoFacts                 map[string]string // text → id
}

// Texts of bank demo, retained a day apart.
var demoTexts = []string{
	"Maya adopted a grey cat called Pixel",
	"Maya moved to Porto for a new job at Lumen",
	xssText,
	"Maya started learning the cello with Pixel asleep nearby",
	"Last spring the cat Pixel flew to Porto in a travel basket",
}

const otherText = "The other bank's secret: the vault code is 7316"

func newBrowserEnv(t *testing.T) *browserEnv {
	t.Helper()
	ctx := context.Background()
	s := testutil.OpenStore(t)
	testutil.CreateBank(t, s, "rajesh")
	writeCoffeeStory(t, s, "rajesh")
	clock := testutil.NewClock(storyDay(120))
	off := consolidate.RunnerConfig{PendingEvery: -1, Idle: -1, DailyAt: -1}
	eng, err := mnemo.Open(ctx, mnemo.Config{Store: s, Now: clock.Now, JobPoll: -1, SessionIdle: -1, Consolidation: off, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	e := &browserEnv{eng: eng, demoFacts: map[string]string{}}
	for _, b := range []string{"demo", "other"} {
		if _, err := eng.CreateBank(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	for i, text := range demoTexts {
		clock.Set(storyDay(float64(110 + i)))
		if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "demo", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	clock.Set(storyDay(120))
	page, err := eng.Facts(ctx, "demo", memory.FactQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range page.Facts {
		e.demoFacts[f.Text] = f.ID
	}
	if _, err := eng.Retain(ctx, memory.RetainRequest{BankID: "other", Text: otherText}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Consolidate(ctx, "demo", "lifecycle"); err != nil {
		t.Fatal(err)
	}
	job := &memory.Job{ID: "job-failed", BankID: "demo", Kind: memory.JobRetain, Payload: []byte(`{"BankID":"demo","Text":"Maya plays the cello on Sundays"}`), CreatedAt: storyDay(119)}
	if err := s.EnqueueJob(ctx, job); err != nil {
		t.Fatal(err)
	}
	claimed, err := s.ClaimJob(ctx, storyDay(119))
	if err != nil {
		t.Fatal(err)
	}
	claimed.Status, claimed.Error, claimed.UpdatedAt = memory.JobFailed, "provider unavailable (scripted)", storyDay(119)
	if err := s.FinishJob(ctx, claimed); err != nil {
		t.Fatal(err)
	}
	key := func(bank string, scope memory.Scope) string {
		secret, _, err := eng.CreateKey(ctx, mnemo.KeyRequest{Bank: bank, Scope: scope})
		if err != nil {
			t.Fatal(err)
		}
		return secret
	}
	e.admin, e.readDemo, e.keyOther = key(memory.AllBanks, memory.ScopeAdmin), key("demo", memory.ScopeRead), key("other", memory.ScopeWrite)
	api := httpapi.New(eng, httpapi.Options{Auth: httpapi.NewKeyAuth(eng), Logger: slog.New(slog.DiscardHandler)})
	api.MountPublic(console.Prefix, console.New(eng, api, console.Options{Logger: slog.New(slog.DiscardHandler)}))
	e.srv = httptest.NewServer(api)
	t.Cleanup(e.srv.Close)
	return e
}

// TestBrowser drives the console in headless Chromium: every view loads
// with no console error and no dialog, screenshots of each; the coffee
// story in the memory zone and on coffee's page; the as-of slider; a
// forget's dry run and the forget, gone from every view; a read-only key
// without editing controls; a key of another bank that sees nothing.
func TestBrowser(t *testing.T) {
	path := chromium(t)
	t.Logf("chromium: %s", path)
	e := newBrowserEnv(t)
	b := newBrowser(t, e.srv.URL)
	t.Logf("screenshots in %s", b.shots)
	b.login(e.admin)

	t.Run("Views", func(t *testing.T) {
		b.t = t
		coffee := memory.EntityID("topic:coffee")
		for _, v := range []struct{ path, view, shot string }{
			{"/ui/", `[data-view="banks"]`, "banks"},
			{"/ui/banks/demo", `[data-view="bank"]`, "bank"},
			{"/ui/banks/rajesh/zone", `[data-view="zone"]`, "zone"},
			{"/ui/banks/rajesh/entities", `[data-view="entities"]`, "entities"},
			{"/ui/banks/rajesh/entities/" + coffee, `[data-view="entity"]`, "entity"},
			{"/ui/banks/demo/timeline", `[data-view="timeline"]`, "timeline"},
			{"/ui/banks/rajesh/graph/" + coffee, `#graph canvas`, "graph"},
			{"/ui/banks/demo/observations", `[data-view="observations"]`, "observations"},
			{"/ui/banks/demo/recall?q=where+does+Maya+live", `table.results`, "recall"},
			{"/ui/banks/demo/runs", `[data-view="runs"]`, "runs"},
			{"/ui/banks/demo/curate", `[data-view="curate"]`, "curate"},
		} {
			b.open(v.path, v.view)
			b.clean(v.path)
			b.shot(v.shot)
		}
		// A page that does not exist says so.
		b.open("/ui/banks/nope", `#view .error`)
		b.forgetErrors()
	})

	t.Run("Recall", func(t *testing.T) {
		b.t = t
		b.open("/ui/banks/demo/recall?q=where+does+Maya+live", `table.results`)
		if n := eval[int](b, `Array.from(document.querySelectorAll('table.results td')).filter(td => /^#\d+ · /.test(td.textContent)).length`); n == 0 {
			t.Errorf("recall: no result explains its rank and score by strategy")
		}
		if ctx := eval[string](b, `document.querySelector('pre.context').textContent`); !strings.Contains(ctx, "Maya moved to Porto") {
			t.Errorf("recall: the packed context %q lacks the best fact", ctx)
		}
		b.clean("recall")
	})

	t.Run("GraphExpand", func(t *testing.T) {
		b.t = t
		ids := map[string]string{}
		page, err := e.eng.Entities(context.Background(), "demo", memory.EntityQuery{})
		if err != nil {
			t.Fatal(err)
		}
		for _, en := range page.Entities {
			ids[en.Name] = en.ID
		}
		if ids["Lumen"] == "" || ids["Porto"] == "" {
			t.Fatalf("demo's entities %v: want Lumen and Porto", ids)
		}
		b.open("/ui/banks/demo/graph/"+ids["Lumen"], `#graph canvas`)
		nodes := func() []string {
			return eval[[]string](b, `document.getElementById('graph').cy.nodes().map(n => n.data('label')).sort()`)
		}
		before := nodes()
		// Lumen is named with Porto only; Porto also with Pixel.
		if !slices.Contains(before, "Porto") || slices.Contains(before, "Pixel") {
			t.Fatalf("Lumen's graph: %q, want Porto and not yet Pixel", before)
		}
		b.do("expand Porto", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`void document.getElementById('graph').cy.getElementById(%q).emit('tap')`, ids["Porto"])))
		var after []string
		for range 50 {
			if after = nodes(); len(after) > len(before) {
				break
			}
			b.do("wait", chromedp.Sleep(100*time.Millisecond))
		}
		if !slices.Contains(after, "Pixel") {
			t.Errorf("after expanding Porto: %q, want its neighbour Pixel added", after)
		}
		b.clean("graph expand")
	})

	t.Run("CoffeeStory", func(t *testing.T) {
		b.t = t
		b.open("/ui/banks/rajesh/zone", `[data-view="zone"]`)
		for name, want := range storyTiers {
			got := eval[string](b, fmt.Sprintf(`document.querySelector('circle.dot[data-entity-name=%q]')?.dataset.tier ?? 'absent'`, name))
			if got != string(want) {
				t.Errorf("memory zone: %s in tier %s, want %s", name, got, want)
			}
		}
		stats := eval[map[string]string](b, `Object.assign({}, document.getElementById('tier-stats').dataset)`)
		if want := map[string]string{"l0": "1", "l1": "2", "l2": "1", "lowSalience": "0"}; fmt.Sprint(stats) != fmt.Sprint(want) {
			t.Errorf("tier stats: %v, want %v", stats, want)
		}
		if n := eval[int](b, `document.querySelectorAll('line.trail.promotion').length`); n != 4 {
			t.Errorf("promotion trail: %d segments, want 4 (coffee, Koramangala twice, coffee shop)", n)
		}
		b.open("/ui/banks/rajesh/entities/"+memory.EntityID("topic:coffee"), `[data-view="entity"]`)
		struck := eval[string](b, `document.querySelector('li.superseded del')?.textContent ?? ''`)
		replaced := eval[string](b, `document.querySelector('li.superseded .replaced')?.textContent ?? ''`)
		if struck != storyCoffee || !strings.Contains(replaced, storyTea) {
			t.Errorf("coffee's page: struck %q replaced by %q, want %q replaced by %q", struck, replaced, storyCoffee, storyTea)
		}
		b.clean("coffee story")
	})

	t.Run("AsOf", func(t *testing.T) {
		b.t = t
		b.open("/ui/banks/demo/timeline", `[data-view="timeline"]`)
		ids := func() []string {
			return eval[[]string](b, `Array.from(document.querySelectorAll('ol.timeline li[data-fact-id]')).map(li => li.dataset.factId)`)
		}
		now := ids()
		if len(now) != len(demoTexts) {
			t.Fatalf("timeline now: %d facts, want %d", len(now), len(demoTexts))
		}
		// Slide to the day the second fact was learned (day 111).
		b.do("slide", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const s = document.getElementById('asof'); s.value = %d; s.dispatchEvent(new Event('change', {bubbles: true})); })()`, storyDay(111.5).Unix())),
			chromedp.WaitVisible(chromedp.CSS(`[data-asof-shown]`)), b.settled())
		then := ids()
		want := []string{e.demoFacts[demoTexts[1]], e.demoFacts[demoTexts[0]]}
		if !slices.Equal(then, want) {
			t.Errorf("as of day 111.5: %q, want the first two facts %q", then, want)
		}
		if url := eval[string](b, `location.pathname + location.search`); !strings.HasPrefix(url, "/ui/banks/demo/timeline?") || !strings.Contains(url, "asof=") {
			t.Errorf("after the slider, the page URL is %s: want the timeline's, with asof", url)
		}
		b.clean("as of")
		b.shot("timeline-asof")
	})

	t.Run("Forget", func(t *testing.T) {
		b.t = t
		victim := e.demoFacts[demoTexts[0]]
		b.open("/ui/banks/demo/curate", `#forget-form`)
		b.do("preview", chromedp.SendKeys(chromedp.CSS(`#forget-form input[name="ids"]`), victim),
			chromedp.Click(chromedp.CSS(`#forget-form button[value="preview"]`)),
			chromedp.WaitVisible(chromedp.CSS(`#forget-preview`)), b.settled())
		listed := eval[[]string](b, `Array.from(document.querySelectorAll('#forget-preview li')).map(li => li.dataset.factId + ' ' + li.textContent)`)
		if want := []string{victim + " " + demoTexts[0]}; !slices.Equal(listed, want) {
			t.Errorf("dry run lists %q, want %q", listed, want)
		}
		b.shot("forget-preview")
		if _, err := e.eng.Fact(context.Background(), "demo", victim); err != nil {
			t.Fatalf("the dry run forgot: %v", err)
		}
		b.do("forget", chromedp.Click(chromedp.CSS(`#forget-confirm`)), chromedp.WaitVisible(chromedp.CSS(`#forget-done`)), b.settled())
		b.clean("forget")
		for _, v := range []struct{ path, view string }{
			{"/ui/banks/demo", `[data-view="bank"]`},
			{"/ui/banks/demo/timeline", `[data-view="timeline"]`},
			{"/ui/banks/demo/curate", `[data-view="curate"]`},
			{"/ui/banks/demo/recall?q=grey+cat+Pixel", `[data-view="recall"]`},
			{"/ui/banks/demo/entities", `[data-view="entities"]`},
		} {
			b.open(v.path, v.view)
			html := eval[string](b, `document.getElementById('view').innerHTML`)
			if strings.Contains(html, victim) || strings.Contains(html, "grey cat called Pixel") {
				t.Errorf("%s still shows the forgotten fact", v.path)
			}
		}
		b.clean("after forget")
	})

	t.Run("Retry", func(t *testing.T) {
		b.t = t
		b.open("/ui/banks/demo/runs", `tr[data-job-id="job-failed"] button.retry`)
		b.do("retry", chromedp.Click(chromedp.CSS(`tr[data-job-id="job-failed"] button.retry`)), chromedp.WaitVisible(chromedp.CSS(`p.note`)), b.settled())
		if n := eval[int](b, `document.querySelectorAll('tr.status-queued').length`); n != 1 {
			t.Errorf("after retry: %d queued jobs, want 1", n)
		}
		b.clean("retry")
	})

	t.Run("Markup", func(t *testing.T) {
		b.t = t
		b.open("/ui/banks/demo", `[data-view="bank"]`)
		shown := eval[[]string](b, `Array.from(document.querySelectorAll('ol.facts .fact-text')).map(s => s.textContent)`)
		if !slices.Contains(shown, xssText) {
			t.Errorf("the markup fact is not shown as text: %q", shown)
		}
		if n := eval[int](b, `document.querySelectorAll('#view img').length`); n != 0 {
			t.Errorf("%d img elements in the view: markup was interpreted", n)
		}
		b.clean("markup") // no dialog opened
	})

	t.Run("ReadOnly", func(t *testing.T) {
		b.t = t
		b.do("sign out", chromedp.Click(chromedp.CSS("#signout")), chromedp.WaitVisible(chromedp.CSS("#key")))
		b.login(e.readDemo)
		b.open("/ui/banks/demo/curate", `[data-view="curate"]`)
		if n := eval[int](b, `document.querySelectorAll('#view [hx-post], #view form').length`); n != 0 {
			t.Errorf("a read-only key sees %d editing controls on the curation page", n)
		}
		b.open("/ui/banks/demo", `[data-view="bank"]`)
		if n := eval[int](b, `document.querySelectorAll('#view [hx-post]').length`); n != 0 {
			t.Errorf("a read-only key sees %d editing controls on the bank page", n)
		}
		b.clean("read-only")
		b.shot("read-only")
	})

	t.Run("OtherBank", func(t *testing.T) {
		b.t = t
		b.do("sign out", chromedp.Click(chromedp.CSS("#signout")), chromedp.WaitVisible(chromedp.CSS("#key")))
		b.login(e.keyOther)
		banks := eval[[]string](b, `Array.from(document.querySelectorAll('tr[data-bank]')).map(tr => tr.dataset.bank)`)
		if !slices.Equal(banks, []string{"other"}) {
			t.Errorf("a key of other lists %q, want only other", banks)
		}
		for _, p := range []string{"/ui/banks/demo", "/ui/banks/rajesh/zone", "/ui/banks/demo/timeline", "/ui/banks/rajesh/entities/" + memory.EntityID("topic:coffee")} {
			b.open(p, `#view .error`)
			text := eval[string](b, `document.body.innerText`)
			if !strings.Contains(text, "Not found") || strings.Contains(text, "Maya") || strings.Contains(text, storyCoffee) || strings.Contains(text, storyTea) {
				t.Errorf("%s with a key of other: %q", p, text)
			}
		}
		b.forgetErrors() // the 404s
		b.open("/ui/banks/other", `[data-view="bank"]`)
		if text := eval[string](b, `document.body.innerText`); !strings.Contains(text, otherText) {
			t.Errorf("a key of other does not see its own bank")
		}
		b.clean("other bank")
	})
}
