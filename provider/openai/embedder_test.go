package openai_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/provider"
	"github.com/mnemo-ai/mnemo/provider/llmtest"
	"github.com/mnemo-ai/mnemo/provider/openai"
)

func TestNewEmbedder(t *testing.T) {
	t.Run("Probe", func(t *testing.T) {
		s := llmtest.NewServer()
		defer s.Close()
		s.SetDimension(24)
		e, err := openai.NewEmbedder(t.Context(), openai.EmbedConfig{BaseURL: s.URL(), APIKey: testKey, Model: "text-embed"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := e.Dimension(), 24; got != want {
			t.Errorf("Dimension = %d, want %d", got, want)
		}
		if got, want := e.Name(), "openai:text-embed"; got != want {
			t.Errorf("Name = %q, want %q", got, want)
		}
		reqs := s.Requests()
		if got, want := len(reqs), 1; got != want {
			t.Fatalf("requests = %d, want %d (one probe)", got, want)
		}
		if got, want := reqs[0].Path, "/v1/embeddings"; got != want {
			t.Errorf("path = %q, want %q", got, want)
		}
		if got, want := reqs[0].Header.Get("Authorization"), "Bearer "+testKey; got != want {
			t.Errorf("Authorization = %q, want %q", got, want)
		}
	})

	t.Run("KnownDimension", func(t *testing.T) {
		s := llmtest.NewServer()
		defer s.Close()
		e, err := openai.NewEmbedder(t.Context(), openai.EmbedConfig{BaseURL: s.URL(), Model: "m", Dimension: 64})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := e.Dimension(), 64; got != want {
			t.Errorf("Dimension = %d, want %d", got, want)
		}
		if got := len(s.Requests()); got != 0 {
			t.Errorf("requests = %d, want none", got)
		}
	})

	t.Run("ErrProbe", func(t *testing.T) {
		s := llmtest.NewServer()
		defer s.Close()
		s.On(llmtest.Rule{Path: llmtest.PathEmbeddings, Reply: llmtest.Reply{Status: 401, Content: "bad key " + testKey}})
		_, err := openai.NewEmbedder(t.Context(), openai.EmbedConfig{BaseURL: s.URL(), APIKey: testKey, Model: "m"})
		if got, want := memory.ErrorCode(err), memory.EUNAUTHORIZED; got != want {
			t.Errorf("code = %q, want %q (%v)", got, want, err)
		}
		if err != nil && strings.Contains(err.Error(), testKey) {
			t.Errorf("error %q contains the API key", err)
		}
	})

	t.Run("ErrNoModel", func(t *testing.T) {
		_, err := openai.NewEmbedder(t.Context(), openai.EmbedConfig{BaseURL: "http://127.0.0.1:1/v1"})
		if got, want := memory.ErrorCode(err), memory.EINVALID; got != want {
			t.Errorf("code = %q, want %q", got, want)
		}
	})
}

func TestEmbedder_Embed(t *testing.T) {
	t.Run("Batches", func(t *testing.T) {
		s := llmtest.NewServer()
		defer s.Close()
		e, err := openai.NewEmbedder(t.Context(), openai.EmbedConfig{BaseURL: s.URL(), Model: "m", Dimension: llmtest.DefaultDimension, BatchSize: 3})
		if err != nil {
			t.Fatal(err)
		}
		texts := []string{"a", "b", "c", "d", "e", "f", ""}
		vs, err := e.Embed(t.Context(), texts)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(vs), len(texts); got != want {
			t.Fatalf("vectors = %d, want %d", got, want)
		}
		for i, text := range texts[:6] {
			want := llmtest.Vector(text, llmtest.DefaultDimension)
			for j := range want {
				if math.Abs(float64(vs[i][j]-want[j])) > 1e-6 {
					t.Fatalf("vector %d differs from the server's vector for %q", i, text)
				}
			}
		}
		var sizes []int
		for _, r := range s.Requests() {
			sizes = append(sizes, len(r.Input))
		}
		if got, want := fmt.Sprint(sizes), "[3 3 1]"; got != want {
			t.Errorf("batch sizes = %s, want %s", got, want)
		}
		if got := s.Requests()[2].Input[0]; got == "" {
			t.Error("an empty text was sent as is")
		}
	})

	t.Run("Normalised", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/v1/embeddings" {
				t.Errorf("path = %q", r.URL.Path)
			}
			b, _ := io.ReadAll(r.Body)
			var req struct {
				Input          []string `json:"input"`
				Model          string   `json:"model"`
				EncodingFormat string   `json:"encoding_format"`
			}
			if err := json.Unmarshal(b, &req); err != nil {
				t.Errorf("body %s: %v", b, err)
			}
			if req.Model != "m" || req.EncodingFormat != "float" {
				t.Errorf("body = %s, want model m and float encoding", b)
			}
			// Out of order and not unit length, like some servers.
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"object":"list","model":"m","data":[
				{"object":"embedding","index":1,"embedding":[0,0,2]},
				{"object":"embedding","index":0,"embedding":[3,4,0]}]}`)
		}))
		defer srv.Close()
		e, err := openai.NewEmbedder(t.Context(), openai.EmbedConfig{BaseURL: srv.URL + "/v1", Model: "m", Dimension: 3})
		if err != nil {
			t.Fatal(err)
		}
		vs, err := e.Embed(t.Context(), []string{"x", "y"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprint(vs), "[[0.6 0.8 0] [0 0 1]]"; got != want {
			t.Errorf("vectors = %s, want %s", got, want)
		}
	})

	t.Run("ErrDimension", func(t *testing.T) {
		s := llmtest.NewServer()
		defer s.Close()
		e, err := openai.NewEmbedder(t.Context(), openai.EmbedConfig{BaseURL: s.URL(), Model: "m", Dimension: 32})
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Embed(t.Context(), []string{"x"})
		if !errors.Is(err, provider.ErrMalformed) {
			t.Errorf("err = %v, want ErrMalformed", err)
		}
	})

	t.Run("RequestDimensions", func(t *testing.T) {
		s := llmtest.NewServer()
		defer s.Close()
		e, err := openai.NewEmbedder(t.Context(), openai.EmbedConfig{BaseURL: s.URL(), Model: "m", Dimension: 16, RequestDimensions: true})
		if err != nil {
			t.Fatal(err)
		}
		vs, err := e.Embed(t.Context(), []string{"x"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(vs[0]), 16; got != want {
			t.Errorf("dimension = %d, want %d", got, want)
		}
	})

	t.Run("Empty", func(t *testing.T) {
		s := llmtest.NewServer()
		defer s.Close()
		e, err := openai.NewEmbedder(t.Context(), openai.EmbedConfig{BaseURL: s.URL(), Model: "m", Dimension: 8})
		if err != nil {
			t.Fatal(err)
		}
		vs, err := e.Embed(t.Context(), nil)
		if err != nil || len(vs) != 0 {
			t.Errorf("Embed(nil) = %v, %v; want no vectors, no error", vs, err)
		}
		if got := len(s.Requests()); got != 0 {
			t.Errorf("requests = %d, want none", got)
		}
	})
}
