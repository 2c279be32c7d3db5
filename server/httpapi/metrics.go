package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// scrapeTimeout bounds the engine reads a scrape makes (job counts).
const scrapeTimeout = 5 * time.Second

// metrics are the server's Prometheus metrics, on a registry of its own
// (two servers in one process do not collide).
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.HistogramVec // by method+route pattern and status
	errors   *prometheus.CounterVec   // by error code
	retains  *prometheus.HistogramVec // by mode (sync, async) and outcome
	recalls  *prometheus.HistogramVec // by outcome
}

func newMetrics(eng *mnemo.Engine) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mnemo_http_request_duration_seconds", Help: "HTTP requests by route pattern and status.",
			Buckets: prometheus.DefBuckets,
		}, []string{"route", "status"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mnemo_http_errors_total", Help: "HTTP error answers by mnemo error code.",
		}, []string{"code"}),
		retains: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mnemo_retain_duration_seconds", Help: "Retains by mode (sync, async: queued) and outcome (ok or an error code).",
			Buckets: prometheus.DefBuckets,
		}, []string{"mode", "outcome"}),
		recalls: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mnemo_recall_duration_seconds", Help: "Recalls by outcome (ok or an error code).",
			Buckets: prometheus.DefBuckets,
		}, []string{"outcome"}),
	}
	m.reg.MustRegister(m.requests, m.errors, m.retains, m.recalls,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		&engineCollector{eng: eng})
	return m
}

// handler serves the metrics.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// request records one answered request, and its error code if it failed.
func (m *metrics) request(route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Observe(d.Seconds())
	if status >= 400 {
		code := codeFor(status)
		if status == http.StatusRequestEntityTooLarge {
			code = memory.EINVALID
		}
		m.errors.WithLabelValues(code).Inc()
	}
}

// outcome is "ok" or err's code.
func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	return memory.ErrorCode(err)
}

// engineCollector reads the engine at scrape time: the job queue by
// status, and the provider calls per stage that provider.Guard counts
// (Engine.Usage).
type engineCollector struct{ eng *mnemo.Engine }

var (
	descJobs      = prometheus.NewDesc("mnemo_jobs", "Jobs by status; queued is the queue's depth.", []string{"status"}, nil)
	descCalls     = prometheus.NewDesc("mnemo_provider_calls_total", "Provider (LLM, embedder, reranker) calls per stage.", []string{"stage"}, nil)
	descCallErrs  = prometheus.NewDesc("mnemo_provider_errors_total", "Provider calls that failed per stage.", []string{"stage"}, nil)
	descRetries   = prometheus.NewDesc("mnemo_provider_retries_total", "Provider call retries per stage.", []string{"stage"}, nil)
	descTokens    = prometheus.NewDesc("mnemo_provider_tokens_total", "Provider tokens per stage and direction (input, output).", []string{"stage", "direction"}, nil)
	descCallTimes = prometheus.NewDesc("mnemo_provider_latency_seconds_total", "Summed provider call latency per stage.", []string{"stage"}, nil)
	descMasked    = prometheus.NewDesc("mnemo_firewall_masked_total", "Secrets retain masked before writing, by kind.", []string{"kind"}, nil)
)

// Describe implements prometheus.Collector.
func (c *engineCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descJobs, descCalls, descCallErrs, descRetries, descTokens, descCallTimes, descMasked} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *engineCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	if counts, err := c.eng.JobCounts(ctx); err != nil {
		ch <- prometheus.NewInvalidMetric(descJobs, err)
	} else {
		for _, st := range []memory.JobStatus{memory.JobQueued, memory.JobRunning, memory.JobDone, memory.JobFailed} {
			ch <- prometheus.MustNewConstMetric(descJobs, prometheus.GaugeValue, float64(counts[st]), string(st))
		}
	}
	for stage, st := range c.eng.Usage() {
		ch <- prometheus.MustNewConstMetric(descCalls, prometheus.CounterValue, float64(st.Calls), stage)
		ch <- prometheus.MustNewConstMetric(descCallErrs, prometheus.CounterValue, float64(st.Errors), stage)
		ch <- prometheus.MustNewConstMetric(descRetries, prometheus.CounterValue, float64(st.Retries), stage)
		ch <- prometheus.MustNewConstMetric(descTokens, prometheus.CounterValue, float64(st.InputTokens), stage, "input")
		ch <- prometheus.MustNewConstMetric(descTokens, prometheus.CounterValue, float64(st.OutputTokens), stage, "output")
		ch <- prometheus.MustNewConstMetric(descCallTimes, prometheus.CounterValue, st.Latency.Seconds(), stage)
	}
	for kind, n := range c.eng.MaskedSecrets() {
		ch <- prometheus.MustNewConstMetric(descMasked, prometheus.CounterValue, float64(n), kind)
	}
}
