//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// maxRSS returns the peak resident set of the finished cmd in KiB.
func maxRSS(cmd *exec.Cmd) int64 {
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss)
	}
	return 0
}
