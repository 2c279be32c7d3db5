package main

import (
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// buildVersion, when set at link time (-ldflags "-X main.buildVersion=v1.2.3"),
// is the version mnemo --version prints; otherwise it comes from the
// build information: the module version of a go install, or the commit
// of a build from a checkout.
var buildVersion string

// version returns the version mnemo --version prints.
func version() string {
	if buildVersion != "" {
		return buildVersion
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	if v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if rev == "" {
		return "devel"
	}
	return "devel-" + rev[:min(12, len(rev))] + modified
}

// strictHelp makes "mnemo help TOPIC" a usage error (exit 2) when TOPIC
// names no command; cobra's help command prints the root's help and
// succeeds.
func strictHelp(root *cobra.Command) {
	for _, c := range root.Commands() {
		if c.Name() != "help" {
			continue
		}
		c.RunE = func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || cmd == nil || len(rest) > 0 {
				return usagef("unknown help topic %q; run mnemo help for the commands", strings.Join(args, " "))
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		}
	}
}
