package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
	"github.com/mnemo-ai/mnemo/wire"
)

// fakeAPI answers the two load routes of bank "load" as the mnemo API
// shapes them, counts what it served, and fails every failEvery-th retain
// (0: never) with a 503 in the API's error shape. Its /metrics states its
// counts in the Prometheus text format, with a label value holding
// braces, spaces and an escaped quote.
type fakeAPI struct {
	failEvery int

	mu              sync.Mutex
	retains, recall int
	failed          int
	items           map[string]bool
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.Method + " " + r.URL.Path {
	case "POST /v1/banks/load/memories":
		var in wire.Retain
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil || in.Text == "" || in.ItemID == "" || f.items[in.ItemID] {
			http.Error(w, fmt.Sprintf("bad retain %+v: %v", in, err), http.StatusBadRequest)
			return
		}
		f.retains++
		if f.failEvery > 0 && f.retains%f.failEvery == 0 {
			f.failed++
			w.WriteHeader(http.StatusServiceUnavailable)
			json.NewEncoder(w).Encode(wire.Error{Error: wire.ErrorBody{Code: memory.EUNAVAILABLE, Message: "busy"}})
			return
		}
		f.items[in.ItemID] = true
		json.NewEncoder(w).Encode(wire.RetainResult{DocumentID: in.ItemID, Facts: 1})
	case "POST /v1/banks/load/recall":
		var in wire.RecallRequest
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || !strings.HasSuffix(in.Query, "?") {
			http.Error(w, fmt.Sprintf("bad recall %+v: %v", in, err), http.StatusBadRequest)
			return
		}
		f.recall++
		json.NewEncoder(w).Encode(wire.Recall{Results: []wire.RecallResult{}, Context: ""})
	case "GET /metrics":
		fmt.Fprintf(w, "# HELP x\n# TYPE mnemo_recall_duration_seconds histogram\n"+
			"mnemo_recall_duration_seconds_count{outcome=\"ok\"} %d\n"+
			"mnemo_retain_duration_seconds_count{mode=\"sync\",outcome=\"ok\"} %d\n"+
			"mnemo_retain_duration_seconds_count{mode=\"sync\",outcome=\"unavailable\"} %d 1700000000\n"+
			"mnemo_http_request_duration_seconds_count{route=\"POST /v1/banks/{bank}/recall \\\"x}\",status=\"200\"} %d\n"+
			"go_goroutines 7\n",
			f.recall, f.retains-f.failed, f.failed, f.recall)
	default:
		http.NotFound(w, r)
	}
}

func TestRunLoad_Fake(t *testing.T) {
	for _, tc := range []struct {
		name      string
		failEvery int
	}{{"OK", 0}, {"ErrUnavailable", 5}} {
		t.Run(tc.name, func(t *testing.T) {
			api := &fakeAPI{failEvery: tc.failEvery, items: map[string]bool{}}
			srv := httptest.NewServer(api)
			defer srv.Close()
			rep, err := RunLoad(t.Context(), srv.URL, LoadOptions{Clients: 4, Duration: 2 * time.Second, RecallShare: 0.5, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			api.mu.Lock()
			defer api.mu.Unlock()
			if rep.Retains != api.retains || rep.Recalls != api.recall {
				t.Errorf("client counted %d retains, %d recalls; server served %d, %d", rep.Retains, rep.Recalls, api.retains, api.recall)
			}
			if rep.Requests != rep.Retains+rep.Recalls || rep.Retains == 0 || rep.Recalls == 0 {
				t.Errorf("requests %d = retains %d + recalls %d, both positive", rep.Requests, rep.Retains, rep.Recalls)
			}
			if rep.Errors != api.failed || rep.ErrorKinds["503 unavailable"] != api.failed || len(rep.ErrorKinds) > 1 {
				t.Errorf("errors %d %v, server failed %d", rep.Errors, rep.ErrorKinds, api.failed)
			}
			if api.failed > 0 && rep.ErrorSamples["503 unavailable"] != "busy" {
				t.Errorf("error sample %q, want the server's message", rep.ErrorSamples["503 unavailable"])
			}
			checkLatencies(t, rep)
			if rep.Server == nil {
				t.Fatalf("no server counters: %s", rep.ServerError)
			}
			if got, want := rep.Server.Recalls, float64(api.recall); got != want {
				t.Errorf("server recalls %v, want %v", got, want)
			}
			if got, want := rep.Server.Retains, float64(api.retains); got != want {
				t.Errorf("server retains %v, want %v (ok and failed)", got, want)
			}
			route := `mnemo_http_request_duration_seconds_count{route="POST /v1/banks/{bank}/recall \"x}",status="200"}`
			if got := rep.Server.Series[route]; got != float64(api.recall) {
				t.Errorf("series %s = %v, want %d (series %v)", route, got, api.recall, rep.Server.Series)
			}
			if _, ok := rep.Server.Series["go_goroutines"]; ok {
				t.Error("a series LoadMetrics does not name was kept")
			}
			var b strings.Builder
			if err := rep.WriteText(&b); err != nil || !strings.Contains(b.String(), fmt.Sprintf("%d errors", rep.Errors)) {
				t.Errorf("text %q, %v", b.String(), err)
			}
		})
	}
}

// checkLatencies checks that rep's percentiles are ordered and present
// for every kind of request that succeeded.
func checkLatencies(t *testing.T, rep *LoadReport) {
	t.Helper()
	for name, l := range map[string]Latency{"retain": rep.RetainMS, "recall": rep.RecallMS} {
		if !(0 < l.P50 && l.P50 <= l.P95 && l.P95 <= l.P99) {
			t.Errorf("%s latency %+v: want 0 < p50 ≤ p95 ≤ p99", name, l)
		}
	}
}

func TestRunLoad_ErrInvalid(t *testing.T) {
	for name, tc := range map[string]struct {
		url  string
		opts LoadOptions
	}{
		"URL":         {"127.0.0.1:7077", LoadOptions{}},
		"Clients":     {"http://127.0.0.1:1", LoadOptions{Clients: -1}},
		"Duration":    {"http://127.0.0.1:1", LoadOptions{Duration: -time.Second}},
		"ShareAbove1": {"http://127.0.0.1:1", LoadOptions{RecallShare: 1.5}},
		"ShareNeg":    {"http://127.0.0.1:1", LoadOptions{RecallShare: -0.1}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := RunLoad(t.Context(), tc.url, tc.opts)
			if memory.ErrorCode(err) != memory.EINVALID {
				t.Errorf("err %v, want invalid", err)
			}
		})
	}
}

func TestRunLoad_ErrTransport(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens any more
	rep, err := RunLoad(t.Context(), url, LoadOptions{Clients: 2, Duration: 100 * time.Millisecond, RecallShare: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors == 0 || rep.Errors != rep.Requests || rep.ErrorKinds["transport"] != rep.Errors {
		t.Errorf("errors %d of %d requests, kinds %v: want every one a transport error", rep.Errors, rep.Requests, rep.ErrorKinds)
	}
	if rep.Server != nil || rep.ServerError == "" {
		t.Errorf("server %+v, error %q: want no counters and the reason", rep.Server, rep.ServerError)
	}
}

func TestParseMetrics(t *testing.T) {
	got, err := ParseMetrics("# TYPE a counter\n\na 1\nb{x=\"} {\\\"\"} 2.5 17\nc +Inf\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []Sample{{"a", "a", 1}, {"b", `b{x="} {\""}`, 2.5}}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2].Name != "c" || got[2].Value <= 1e308 {
		t.Errorf("got %+v, want %+v and c +Inf", got, want)
	}
	for _, bad := range []string{"a", "a{x=\"1\" 2", "a x", "a 1 2 3", "{x=\"1\"} 2"} {
		if _, err := ParseMetrics(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestRunLoad_Server drives the real HTTP API over a temporary engine:
// nothing fails, and the server's counters match what the clients sent.
func TestRunLoad_Server(t *testing.T) {
	eng, err := mnemo.Open(t.Context(), mnemo.Config{DB: filepath.Join(t.TempDir(), "mnemo.db"), JobPoll: -1, SessionIdle: -1, AccessFlush: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	facts, err := LoadBank(t.Context(), eng, DefaultLoadBank, 200, 1)
	if err != nil {
		t.Fatal(err)
	}
	if facts == 0 {
		t.Fatal("the bank holds no facts")
	}
	api := httpapi.New(eng, httpapi.Options{InsecureLocal: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv := httptest.NewServer(api)
	defer srv.Close()
	rep, err := RunLoad(t.Context(), srv.URL, LoadOptions{Clients: 4, Duration: time.Second, RecallShare: 0.7, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 0 {
		t.Fatalf("%d errors: %v %v", rep.Errors, rep.ErrorKinds, rep.ErrorSamples)
	}
	if rep.Requests != rep.Retains+rep.Recalls || rep.Retains == 0 || rep.Recalls == 0 {
		t.Errorf("requests %d = retains %d + recalls %d, both positive", rep.Requests, rep.Retains, rep.Recalls)
	}
	checkLatencies(t, rep)
	if rep.Server == nil {
		t.Fatalf("no server counters: %s", rep.ServerError)
	}
	// The preload went through the engine, not the API: the server counted
	// exactly the clients' requests.
	if rep.Server.Retains != float64(rep.Retains) || rep.Server.Recalls != float64(rep.Recalls) {
		t.Errorf("server counted %v retains, %v recalls; clients sent %d, %d", rep.Server.Retains, rep.Server.Recalls, rep.Retains, rep.Recalls)
	}
	st, err := eng.Stats(t.Context(), DefaultLoadBank)
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents < 10+rep.Retains {
		t.Errorf("%d documents, want the preload's 10 and the %d retained", st.Documents, rep.Retains)
	}
}
