package console_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path"
	"regexp"
	"testing"
)

// assetLine is a pinned asset of scripts/console-assets.sh:
// "package version file sha256".
var assetLine = regexp.MustCompile(`(?m)^\s*"(\S+) (\S+) (\S+) ([0-9a-f]{64})"\s*$`)

// TestAssets_Pinned checks that each vendored file is exactly the one
// scripts/console-assets.sh pins (the script checks the same hash on the
// file npm serves), so the committed build is the script's.
func TestAssets_Pinned(t *testing.T) {
	script, err := os.ReadFile("../../scripts/console-assets.sh")
	if err != nil {
		t.Fatal(err)
	}
	pins := assetLine.FindAllStringSubmatch(string(script), -1)
	if len(pins) < 2 {
		t.Fatalf("found %d pinned assets in scripts/console-assets.sh, want htmx and cytoscape", len(pins))
	}
	for _, p := range pins {
		name := path.Base(p[3])
		b, err := os.ReadFile("static/vendor/" + name)
		if err != nil {
			t.Errorf("%s@%s: %v", p[1], p[2], err)
			continue
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != p[4] {
			t.Errorf("static/vendor/%s: sha256 %s, want %s (%s@%s): run scripts/console-assets.sh", name, got, p[4], p[1], p[2])
		}
	}
}
