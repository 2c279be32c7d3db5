package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
)

// MemoryUse returns the process's resident set size and its peak in MiB,
// as the synthetic report gives them.
func MemoryUse() (rssMB, peakMB float64) { return memoryUse() }

// memoryUse returns the process's resident set size and its peak in MiB,
// from /proc/self/status (VmRSS, VmHWM). Where that file cannot be read,
// both are the bytes the Go runtime obtained from the OS (MemStats.Sys):
// a lower bound that leaves out memory allocated outside Go.
func memoryUse() (rssMB, peakMB float64) {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		if rss, peak, err := parseProcStatus(bytes.NewReader(b)); err == nil {
			return float64(rss) / 1024, float64(peak) / 1024
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	sys := float64(ms.Sys) / (1 << 20)
	return sys, sys
}

// parseProcStatus returns VmRSS and VmHWM in kB from a /proc/<pid>/status
// file. A missing VmHWM is taken to be VmRSS; a missing VmRSS is an error.
func parseProcStatus(r io.Reader) (rssKB, peakKB int64, err error) {
	rssKB, peakKB = -1, -1
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		f := strings.Fields(val) // "123456 kB"
		if len(f) != 2 || f[1] != "kB" {
			return 0, 0, fmt.Errorf("parse %s: %q", key, val)
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("parse %s: %w", key, err)
		}
		if key == "VmRSS" {
			rssKB = n
		} else {
			peakKB = n
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, err
	}
	if rssKB < 0 {
		return 0, 0, fmt.Errorf("no VmRSS")
	}
	if peakKB < 0 {
		peakKB = rssKB
	}
	return rssKB, peakKB, nil
}

// Memory is a breakdown of the process's memory, in MiB, to tell where an
// RSS goes: the kernel's view (/proc/self/status) next to the Go
// runtime's (runtime/metrics). Fields the platform cannot give are 0.
type Memory struct {
	// RSS and Peak are VmRSS and VmHWM; Anon and File split the RSS into
	// anonymous memory and mapped files (the executable's pages).
	RSS  float64 `json:"rss_mb"`
	Peak float64 `json:"peak_rss_mb"`
	Anon float64 `json:"anon_mb,omitempty"`
	File float64 `json:"file_mb,omitempty"`
	// GoLive is the heap the last GC found live; GoHeap the heap the
	// runtime holds from the OS (objects, fragmentation and free spans not
	// yet returned); GoOther the rest the runtime holds (stacks, GC and
	// runtime metadata).
	GoLive  float64 `json:"go_live_mb"`
	GoHeap  float64 `json:"go_heap_mb"`
	GoOther float64 `json:"go_other_mb"`
	// NonGo is Anon less what the Go runtime holds: memory allocated
	// outside Go's heap, SQLite's page caches among it (modernc's SQLite
	// allocates with mmap). An estimate: pages the runtime holds but never
	// touched count for nothing in Anon.
	NonGo float64 `json:"non_go_mb,omitempty"`
}

// ReadMemory returns the process's memory now.
func ReadMemory() Memory {
	var m Memory
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		kb := procStatusFields(b, "VmRSS", "VmHWM", "RssAnon", "RssFile")
		m.RSS, m.Peak, m.Anon, m.File = kb[0]/1024, kb[1]/1024, kb[2]/1024, kb[3]/1024
	}
	samples := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	metrics.Read(samples)
	v := make([]float64, len(samples))
	for i, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = float64(s.Value.Uint64()) / (1 << 20)
		}
	}
	m.GoLive = v[0]
	m.GoHeap = v[1] + v[2] + v[3]
	held := v[4] - v[5]
	m.GoOther = held - m.GoHeap
	if m.RSS == 0 {
		m.RSS, m.Peak = held, held
	}
	if m.Anon > 0 {
		m.NonGo = max(0, m.Anon-held)
	}
	return m
}

// procStatusFields returns the values in kB of the given keys of a
// /proc/<pid>/status file, 0 for a key it lacks.
func procStatusFields(b []byte, keys ...string) []float64 {
	out := make([]float64, len(keys))
	for _, line := range strings.Split(string(b), "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		if i := slices.Index(keys, key); i >= 0 {
			if f := strings.Fields(val); len(f) == 2 && f[1] == "kB" {
				n, _ := strconv.ParseFloat(f[0], 64)
				out[i] = n
			}
		}
	}
	return out
}

// WriteText writes where the RSS goes and ends the line.
func (m Memory) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "anon %.1f + file %.1f MB; Go heap %.1f MB (live %.1f), Go other %.1f MB, outside Go ~%.1f MB\n",
		m.Anon, m.File, m.GoHeap, m.GoLive, m.GoOther, m.NonGo)
	return err
}
