package memory

import (
	"regexp"
	"time"
)

// DefaultBank is the bank used when the caller names none.
const DefaultBank = "default"

// Bank is an isolated memory: one user or one agent. Every other row
// belongs to exactly one bank and no read or write ever crosses banks.
type Bank struct {
	ID        string // stable identifier; equal to Name for banks created by name
	Name      string
	Settings  BankSettings
	Embedder  string // name of the embedder that wrote the bank's vectors
	Dimension int    // dimension of the bank's vectors; 0 until the first write
	CreatedAt time.Time
}

// BankSettings are a bank's overrides of the engine's defaults. The zero
// value means "use the defaults" everywhere.
type BankSettings struct {
	// Disposition, each 1–5 (Hindsight); 0 means unset.
	Skepticism int `json:"skepticism,omitempty"`
	Literalism int `json:"literalism,omitempty"`
	Empathy    int `json:"empathy,omitempty"`

	Mission    string `json:"mission,omitempty"`
	Background string `json:"background,omitempty"`

	// ShortTermTTL overrides DefaultShortTermTTL when non-zero.
	ShortTermTTL time.Duration `json:"short_term_ttl,omitempty"`
	// ConsolidateInterval overrides the runner's pending-facts interval.
	ConsolidateInterval time.Duration `json:"consolidate_interval,omitempty"`
	// Consolidation overrides the bank's consolidation numbers and
	// triggers by name ("salience_half_life": "45d", "daily_at":
	// "04:00", "dreams": "on"); package consolidate lists the names and
	// reads the values (consolidate.Apply), and the façade refuses a
	// name or value it does not know.
	Consolidation map[string]string `json:"consolidation,omitempty"`

	// SecretAllow lists secrets retain keeps as they are instead of
	// masking them (a public demo key, a sample token): package firewall
	// masks every other secret it finds before anything is written.
	SecretAllow []string `json:"secret_allow,omitempty"`

	// Restoring is set while mnemo import fills the bank from an export
	// and cleared when the whole export is in: a bank with it set is
	// incomplete (an import was interrupted), is refused by stats, recall
	// and export, and is replaced by the next import of the same bank.
	Restoring bool `json:"restoring,omitempty"`
}

var bankNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`)

// ValidateBankName reports whether name can name a bank: 1–128 characters
// of letters, digits, '.', '_', ':' and '-', starting with a letter or digit.
func ValidateBankName(name string) error {
	if name == "" {
		return Errorf(EINVALID, "bank name is empty")
	}
	if !bankNameRE.MatchString(name) {
		return Errorf(EINVALID, "bank name %q: use 1-128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit", name)
	}
	return nil
}
