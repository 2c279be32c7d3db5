package bench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
)

// Defaults of a load run over HTTP.
const (
	DefaultLoadClients  = 50
	DefaultLoadDuration = 60 * time.Second
	// DefaultLoadRecallShare is the share of a load run's requests that
	// are recalls; the rest are retains.
	DefaultLoadRecallShare = 0.7
	// DefaultLoadFacts is how many synthetic facts a load bank holds
	// before the clients start.
	DefaultLoadFacts = 5_000
	// DefaultLoadBank is the bank a load run fills and asks.
	DefaultLoadBank = "load"
	// DefaultLoadTimeout bounds one request of a load run: a request
	// that takes longer counts as failed ("timeout").
	DefaultLoadTimeout = 30 * time.Second
	// LoadSource is the source of every item a load run retains.
	LoadSource = "load"
)

// synLoadStream is the PCG stream of a load client's draws; client i uses
// stream synLoadStream+i.
const synLoadStream = 0x6d6e656d6f_10

// LoadOptions tunes [RunLoad]. Clients and Duration default when zero;
// RecallShare is taken as it is (0: retains only).
type LoadOptions struct {
	// Bank is the bank the clients retain into and recall from; it must
	// exist. "" means DefaultLoadBank.
	Bank string
	// Clients is the number of concurrent clients, each with its own
	// http.Client and connection, one request at a time; 0 means
	// DefaultLoadClients.
	Clients int
	// Duration is how long clients start new requests; requests in
	// flight when it ends finish and count. 0 means DefaultLoadDuration.
	Duration time.Duration
	// RecallShare, in [0, 1], is the chance that a request is a recall
	// rather than a retain.
	RecallShare float64
	// Seed seeds the texts, questions and the retain/recall draws; every
	// value, 0 included, is a seed.
	Seed int64
	// Key, when set, is sent as "Authorization: Bearer <Key>".
	Key string
	// Timeout bounds one request; 0 means DefaultLoadTimeout.
	Timeout time.Duration
}

// LoadReport is the outcome of [RunLoad]: what the clients saw, and the
// server's own counters read from its /metrics afterwards.
type LoadReport struct {
	Clients     int     `json:"clients"`
	RecallShare float64 `json:"recall_share"`
	// Seconds is the wall time from the first request to the last answer.
	Seconds float64 `json:"seconds"`
	// Requests is every request sent: Retains + Recalls, failed included.
	Requests int `json:"requests"`
	Retains  int `json:"retains"`
	Recalls  int `json:"recalls"`
	// Errors is how many requests failed; ErrorKinds counts them by
	// "<status> <code>" (an HTTP error answer), "timeout" or "transport",
	// and ErrorSamples holds the first message of each kind.
	Errors       int               `json:"errors"`
	ErrorKinds   map[string]int    `json:"error_kinds,omitempty"`
	ErrorSamples map[string]string `json:"error_samples,omitempty"`
	// RequestsPerSec is Requests over Seconds.
	RequestsPerSec float64 `json:"requests_per_s"`
	// RetainMS and RecallMS are the client-side latencies of the
	// successful requests, answer body read.
	RetainMS Latency `json:"retain_ms"`
	RecallMS Latency `json:"recall_ms"`
	// Server is what the server's /metrics said after the run; nil when
	// it could not be read (ServerError says why).
	Server      *ServerCounters `json:"server,omitempty"`
	ServerError string          `json:"server_error,omitempty"`
}

// ServerCounters are the retain and recall counters of a mnemo server's
// /metrics: the sample counts of mnemo_retain_duration_seconds and
// mnemo_recall_duration_seconds summed over their labels, and every
// sample of the series LoadMetrics names, keyed by series
// (`mnemo_recall_duration_seconds_count{outcome="ok"}`).
type ServerCounters struct {
	Retains float64            `json:"retains"`
	Recalls float64            `json:"recalls"`
	Series  map[string]float64 `json:"series"`
}

// LoadMetrics are the metric names a load report reads from /metrics.
var LoadMetrics = []string{
	"mnemo_retain_duration_seconds_count",
	"mnemo_recall_duration_seconds_count",
	"mnemo_http_request_duration_seconds_count",
	"mnemo_http_errors_total",
}

// RunLoad drives the mnemo HTTP API at baseURL ("http://127.0.0.1:7077")
// with opts.Clients concurrent clients for opts.Duration: each client
// sends, one at a time, POST /v1/banks/{bank}/recall (a synthetic
// question, limit SyntheticLimit) with chance opts.RecallShare and
// otherwise POST /v1/banks/{bank}/memories (one synthetic sentence as a
// new item). A failed request is counted, never retried, and the run goes
// on. Afterwards it reads GET /metrics. It returns an EINVALID error for
// bad options, ctx's error when ctx ends first, and otherwise the report,
// failed requests included: the caller decides what failures mean.
func RunLoad(ctx context.Context, baseURL string, opts LoadOptions) (*LoadReport, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, memory.Errorf(memory.EINVALID, "load: base URL %q is not http(s)://host[:port]", baseURL)
	}
	base := strings.TrimSuffix(baseURL, "/")
	switch {
	case opts.Clients < 0:
		return nil, memory.Errorf(memory.EINVALID, "load: clients must be positive, not %d", opts.Clients)
	case opts.Duration < 0:
		return nil, memory.Errorf(memory.EINVALID, "load: duration must be positive, not %s", opts.Duration)
	case opts.Timeout < 0:
		return nil, memory.Errorf(memory.EINVALID, "load: timeout must be positive, not %s", opts.Timeout)
	case !(opts.RecallShare >= 0 && opts.RecallShare <= 1): // NaN too
		return nil, memory.Errorf(memory.EINVALID, "load: recall share must be in [0, 1], not %v", opts.RecallShare)
	}
	opts.Bank = cmp.Or(opts.Bank, DefaultLoadBank)
	opts.Clients = cmp.Or(opts.Clients, DefaultLoadClients)
	opts.Duration = cmp.Or(opts.Duration, DefaultLoadDuration)
	opts.Timeout = cmp.Or(opts.Timeout, DefaultLoadTimeout)
	bankURL := base + "/v1/banks/" + url.PathEscape(opts.Bank)

	start := time.Now()
	deadline := start.Add(opts.Duration)
	tallies := make([]loadTally, opts.Clients)
	var wg sync.WaitGroup
	for i := range tallies {
		wg.Go(func() {
			c := &loadClient{
				http:   &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: opts.Timeout},
				bank:   bankURL,
				key:    opts.Key,
				item:   "load/" + strconv.FormatInt(opts.Seed, 10) + "/" + strconv.Itoa(i) + "/",
				gen:    newSynGen(opts.Seed, synLoadStream+uint64(i)),
				share:  opts.RecallShare,
				tally:  &tallies[i],
				expire: deadline,
			}
			defer c.http.CloseIdleConnections()
			c.run(ctx)
		})
	}
	wg.Wait()
	took := time.Since(start)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	r := &LoadReport{Clients: opts.Clients, RecallShare: opts.RecallShare, Seconds: took.Seconds()}
	var retainLat, recallLat []time.Duration
	for _, t := range tallies {
		r.Retains += t.retains
		r.Recalls += t.recalls
		retainLat = append(retainLat, t.retainLat...)
		recallLat = append(recallLat, t.recallLat...)
		for _, f := range t.failures {
			r.Errors++
			if r.ErrorKinds == nil {
				r.ErrorKinds, r.ErrorSamples = map[string]int{}, map[string]string{}
			}
			r.ErrorKinds[f.kind]++
			if _, ok := r.ErrorSamples[f.kind]; !ok {
				r.ErrorSamples[f.kind] = f.message
			}
		}
	}
	r.Requests = r.Retains + r.Recalls
	r.RequestsPerSec = perSecond(r.Requests, took)
	r.RetainMS = Percentiles(retainLat)
	r.RecallMS = Percentiles(recallLat)
	if r.Server, err = ScrapeCounters(ctx, base+"/metrics"); err != nil {
		r.ServerError = err.Error()
	}
	return r, nil
}

// loadTally is what one client saw; only its client writes it.
type loadTally struct {
	retains, recalls     int
	retainLat, recallLat []time.Duration // successful requests only
	failures             []loadFailure
}

type loadFailure struct{ kind, message string }

// loadClient is one client of a load run.
type loadClient struct {
	http   *http.Client
	bank   string // the bank's URL
	key    string
	item   string // prefix of the client's item ids
	gen    *synGen
	share  float64
	tally  *loadTally
	expire time.Time
}

// run sends requests until the deadline or the end of ctx.
func (c *loadClient) run(ctx context.Context) {
	for n := 0; ctx.Err() == nil && time.Now().Before(c.expire); n++ {
		var path string
		var body any
		recall := c.gen.r.Float64() < c.share
		if recall {
			path, body = "/recall", wire.RecallRequest{Query: c.gen.question(), Limit: SyntheticLimit}
			c.tally.recalls++
		} else {
			a, b := c.gen.person(), c.gen.person()
			path = "/memories"
			body = wire.Retain{Text: c.gen.sentence(a, b, time.Now()), Speaker: a.first,
				Source: LoadSource, ItemID: c.item + strconv.Itoa(n)}
			c.tally.retains++
		}
		took, err := c.post(ctx, path, body)
		switch {
		case err == nil && recall:
			c.tally.recallLat = append(c.tally.recallLat, took)
		case err == nil:
			c.tally.retainLat = append(c.tally.retainLat, took)
		case ctx.Err() != nil:
			return // the run was stopped: not the server's failure
		default:
			var f loadFailure
			if !errors.As(err, &f) {
				f = loadFailure{kind: "transport", message: err.Error()}
				if te, ok := err.(interface{ Timeout() bool }); ok && te.Timeout() {
					f.kind = "timeout"
				}
			}
			c.tally.failures = append(c.tally.failures, f)
		}
	}
}

// Error implements error.
func (f loadFailure) Error() string { return f.kind + ": " + f.message }

// post sends body as JSON to the bank's path and returns the time until
// the whole answer was read; an error answer is a loadFailure.
func (c *loadClient) post(ctx context.Context, path string, body any) (time.Duration, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.bank+path, bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	took := time.Since(start)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode/100 != 2 {
		var e wire.Error
		kind, msg := strconv.Itoa(resp.StatusCode), strings.TrimSpace(string(data))
		if json.Unmarshal(data, &e) == nil && e.Error.Code != "" {
			kind, msg = kind+" "+e.Error.Code, e.Error.Message
		}
		return 0, loadFailure{kind: kind, message: msg}
	}
	if !json.Valid(data) {
		return 0, loadFailure{kind: strconv.Itoa(resp.StatusCode) + " bad json", message: fmt.Sprintf("%.200s", data)}
	}
	return took, nil
}

// ScrapeCounters reads a mnemo server's Prometheus metrics at metricsURL
// and returns its retain and recall counters (see [ServerCounters]). It
// fails when the server does not answer 200 or the text does not parse.
func ScrapeCounters(ctx context.Context, metricsURL string) (*ServerCounters, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metricsURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", metricsURL, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", metricsURL, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape %s: status %d", metricsURL, resp.StatusCode)
	}
	samples, err := ParseMetrics(string(data))
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", metricsURL, err)
	}
	sc := &ServerCounters{Series: map[string]float64{}}
	for _, s := range samples {
		if !slices.Contains(LoadMetrics, s.Name) {
			continue
		}
		sc.Series[s.Series] = s.Value
		switch s.Name {
		case "mnemo_retain_duration_seconds_count":
			sc.Retains += s.Value
		case "mnemo_recall_duration_seconds_count":
			sc.Recalls += s.Value
		}
	}
	return sc, nil
}

// Sample is one sample line of the Prometheus text format: the metric
// name, the series as written (name and labels), and the value.
type Sample struct {
	Name   string
	Series string
	Value  float64
}

// ParseMetrics returns the samples of text in the Prometheus text
// exposition format (comments and blank lines skipped; a timestamp after
// the value ignored). Label values may hold spaces, braces and escaped
// quotes. It returns an error naming the first line it cannot read.
func ParseMetrics(text string) ([]Sample, error) {
	var out []Sample
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		end := strings.IndexAny(line, "{ \t")
		if end <= 0 {
			return nil, fmt.Errorf("metrics line %d: no value: %.80q", i+1, line)
		}
		name := line[:end]
		if line[end] == '{' {
			rb := labelsEnd(line, end)
			if rb < 0 {
				return nil, fmt.Errorf("metrics line %d: unclosed labels: %.80q", i+1, line)
			}
			end = rb + 1
		}
		fields := strings.Fields(line[end:])
		if len(fields) == 0 || len(fields) > 2 {
			return nil, fmt.Errorf("metrics line %d: want a value (and a timestamp): %.80q", i+1, line)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return nil, fmt.Errorf("metrics line %d: value %q: %v", i+1, fields[0], err)
		}
		out = append(out, Sample{Name: name, Series: line[:end], Value: v})
	}
	return out, nil
}

// labelsEnd returns the index of the '}' closing the label set that opens
// at line[open], skipping quoted values with backslash escapes; -1 when
// it is not closed.
func labelsEnd(line string, open int) int {
	quoted := false
	for i := open + 1; i < len(line); i++ {
		switch c := line[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c == '}':
			return i
		}
	}
	return -1
}

// WriteText writes r as human-readable lines.
func (r *LoadReport) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "load: %d clients for %.1f s (recall share %.2f): %d requests (%d retains, %d recalls), %.1f requests/s, %d errors\n",
		r.Clients, r.Seconds, r.RecallShare, r.Requests, r.Retains, r.Recalls, r.RequestsPerSec, r.Errors)
	fmt.Fprintf(&b, "retain: p50 %.2f ms, p95 %.2f ms, p99 %.2f ms\n", r.RetainMS.P50, r.RetainMS.P95, r.RetainMS.P99)
	fmt.Fprintf(&b, "recall: p50 %.2f ms, p95 %.2f ms, p99 %.2f ms\n", r.RecallMS.P50, r.RecallMS.P95, r.RecallMS.P99)
	for _, k := range slices.Sorted(maps.Keys(r.ErrorKinds)) {
		fmt.Fprintf(&b, "errors %s: %d (first: %s)\n", k, r.ErrorKinds[k], r.ErrorSamples[k])
	}
	if r.Server != nil {
		fmt.Fprintf(&b, "server /metrics: %.0f retains, %.0f recalls\n", r.Server.Retains, r.Server.Recalls)
		for _, s := range slices.Sorted(maps.Keys(r.Server.Series)) {
			fmt.Fprintf(&b, "  %s %g\n", s, r.Server.Series[s])
		}
	} else if r.ServerError != "" {
		fmt.Fprintf(&b, "server /metrics: %s\n", r.ServerError)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// LoadBank creates bank and fills it with GenerateSynthetic(facts, seed)
// (in bulk when eng is a BulkRetainer), then waits for its search index
// when eng is an IndexWaiter: the bank a load run starts on. It returns
// the facts the engine reported storing, and stops at the first error.
func LoadBank(ctx context.Context, eng Engine, bank string, facts int, seed int64) (int, error) {
	if facts < 0 {
		return 0, memory.Errorf(memory.EINVALID, "load: facts must not be negative, not %d", facts)
	}
	b, err := eng.CreateBank(ctx, bank)
	if err != nil {
		return 0, fmt.Errorf("create bank %s: %w", bank, err)
	}
	reqs := GenerateSynthetic(facts, seed)
	for i := range reqs {
		reqs[i].BankID = b.ID
	}
	stored := 0
	if bulk, ok := eng.(BulkRetainer); ok {
		for start := 0; start < len(reqs); start += syntheticChunk {
			chunk := reqs[start:min(start+syntheticChunk, len(reqs))]
			results, errs := bulk.RetainMany(ctx, chunk)
			for i, err := range errs {
				if err != nil {
					return stored, fmt.Errorf("retain %s: %w", chunk[i].ItemID, err)
				}
				stored += results[i].Facts
			}
		}
	} else {
		for _, req := range reqs {
			n, _, err := retainTimed(ctx, eng, req)
			if err != nil {
				return stored, err
			}
			stored += n
		}
	}
	if w, ok := eng.(IndexWaiter); ok {
		if err := w.WaitIndexed(ctx, b.ID); err != nil {
			return stored, fmt.Errorf("wait for the search index: %w", err)
		}
	}
	return stored, nil
}
