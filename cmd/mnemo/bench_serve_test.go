package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

func TestBenchServe(t *testing.T) {
	db := filepath.Join(t.TempDir(), "unused.db")
	out := mustRun(t, db, "bench", "serve", "--json", "--clients", "3", "--duration", "500ms", "--facts", "100", "--seed", "4")
	var rep struct {
		PreloadFacts int `json:"preload_facts"`
		Requests     int `json:"requests"`
		Retains      int `json:"retains"`
		Recalls      int `json:"recalls"`
		Errors       int `json:"errors"`
		Server       struct {
			Retains float64 `json:"retains"`
			Recalls float64 `json:"recalls"`
		} `json:"server"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.PreloadFacts == 0 || rep.Requests == 0 || rep.Errors != 0 || rep.Requests != rep.Retains+rep.Recalls {
		t.Errorf("report %+v: want a preload, requests, no errors", rep)
	}
	if rep.Server.Retains != float64(rep.Retains) || rep.Server.Recalls != float64(rep.Recalls) {
		t.Errorf("server counted %v retains, %v recalls; clients sent %d, %d", rep.Server.Retains, rep.Server.Recalls, rep.Retains, rep.Recalls)
	}
}

func TestBenchServe_ErrInvalid(t *testing.T) {
	db := filepath.Join(t.TempDir(), "unused.db")
	for _, args := range [][]string{
		{"--clients", "0"}, {"--duration", "0s"}, {"--recall-share", "1.5"}, {"--facts", "-1"},
	} {
		r := mnemoRun(t, db, append([]string{"bench", "serve"}, args...)...)
		wantFailure(t, r, exitInvalid, args[0])
	}
}
