package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
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
