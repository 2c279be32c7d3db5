package proxy_test

import (
	"bufio"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/proxy"
)

// BenchmarkProxy_TTFB measures the time to the first streamed byte of a
// chat, straight to a local upstream and through the proxy (recall on a
// small bank, injection, forwarding), and reports the p50 and p99 of
// each: what the proxy adds is the difference.
//
//	go test ./proxy -run '^$' -bench TTFB -benchtime 400x
func BenchmarkProxy_TTFB(b *testing.B) {
	f := newFixture(b)
	up := newUpstream(b, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\ndata: [DONE]\n\n")
	})
	url, p := f.serve(b, up, proxy.Config{})
	defer p.Close()
	body := strings.Replace(chatBody, `"model":"m"`, `"model":"m","stream":true`, 1)
	for _, tc := range []struct{ name, url string }{
		{"Direct", up.srv.URL + "/v1/chat/completions"},
		{"Proxy", url + "/v1/chat/completions"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var ttfb []time.Duration
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodPost, tc.url, strings.NewReader(body))
				req.Header.Set(proxy.HeaderKey, f.keyA)
				start := time.Now()
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := bufio.NewReader(res.Body).ReadByte(); err != nil {
					b.Fatal(err)
				}
				ttfb = append(ttfb, time.Since(start))
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
			slices.Sort(ttfb)
			b.ReportMetric(float64(ttfb[len(ttfb)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(ttfb[len(ttfb)*99/100].Microseconds()), "p99-µs")
		})
	}
}
