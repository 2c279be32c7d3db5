package firewall

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/importer"
)

// secrets is the corpus: real-looking secrets in the places agents meet
// them (a .env file, a shell history, a config, a chat), each with the
// kind it must be masked as and the secret text that must disappear.
var secrets = []struct {
	name, text, kind, secret string
}{
	{"OpenAI", "export OPENAI_API_KEY=sk-proj-4fQ9zXw2LmN8pR7tV1yB3cD6eF0gH5jK", "openai_key", "sk-proj-4fQ9zXw2LmN8pR7tV1yB3cD6eF0gH5jK"},
	{"OpenAIInProse", "my key is sk-9aB8cD7eF6gH5iJ4kL3mN2oP1qR0sT and it works", "openai_key", "sk-9aB8cD7eF6gH5iJ4kL3mN2oP1qR0sT"},
	{"Anthropic", `ANTHROPIC_API_KEY="sk-ant-api03-Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf9EdCbA-xyz12"`, "anthropic_key", "sk-ant-api03-Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf9EdCbA-xyz12"},
	{"GitHub", "git remote set-url origin https://ghp_R2d2C3poL8sK9mN4bV6cX1zA7qW5eT3yU0iO@github.com/acme/app", "github_token", "ghp_R2d2C3poL8sK9mN4bV6cX1zA7qW5eT3yU0iO"},
	{"GitHubPAT", "token github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123", "github_token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123"},
	{"AWS", "aws_access_key_id = AKIAIOSFODNN7EXAMPLF", "aws_access_key", "AKIAIOSFODNN7EXAMPLF"},
	{"AWSSecret", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLF1", "assignment", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLF1"},
	{"Slack", "SLACK_BOT=xoxb-2048-4096-aZ9yX8wV7uT6sR5q", "slack_token", "xoxb-2048-4096-aZ9yX8wV7uT6sR5q"},
	{"Stripe", "stripe.api_key = 'sk_live_51Hx9aB8cD7eF6gH5iJ4kL3m'", "stripe_key", "sk_live_51Hx9aB8cD7eF6gH5iJ4kL3m"},
	{"Google", "GOOGLE_API_KEY: AIzaSyD9x8W7v6U5t4S3r2Q1p0O9n8M7l6K5j4I", "google_api_key", "AIzaSyD9x8W7v6U5t4S3r2Q1p0O9n8M7l6K5j4I"},
	{"JWT", "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
	{"Bearer", "curl -H 'Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0' https://api.example.com", "bearer_token", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"},
	{"Postgres", "DATABASE_URL=postgres://app:S3cr3t-P4ss!@db.internal:5432/prod", "connection_string", "S3cr3t-P4ss!"},
	{"Mongo", "mongodb+srv://admin:hunter2hunter2@cluster0.ab1cd.mongodb.net/test", "connection_string", "hunter2hunter2"},
	{"Password", "the wifi password: Tr0ub4dor&3x", "assignment", "Tr0ub4dor&3x"},
	{"EnvSecret", "CLIENT_SECRET=7c1f0e2b9a8d4c3b6e5f", "assignment", "7c1f0e2b9a8d4c3b6e5f"},
	{"Mnemo", "use mnemo_" + strings.Repeat("Ab3_", 10) + "xyz for the proxy", "mnemo_key", "mnemo_" + strings.Repeat("Ab3_", 10) + "xyz"},
	{"PrivateKey", "id_ed25519:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\nthanks", "private_key", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"},
}

func TestMask_Secrets(t *testing.T) {
	for _, tc := range secrets {
		t.Run(tc.name, func(t *testing.T) {
			got, found := Mask(tc.text, nil)
			if strings.Contains(got, tc.secret) {
				t.Errorf("Mask(%q) = %q: the secret is still there", tc.text, got)
			}
			if !strings.Contains(got, Redaction(tc.kind)) {
				t.Errorf("Mask(%q) = %q, want %s (found %+v)", tc.text, got, Redaction(tc.kind), found)
			}
			if len(found) == 0 {
				t.Error("no findings")
			}
		})
	}
}

// What surrounds a secret stays: a connection string keeps its user and
// host, prose keeps its words.
func TestMask_KeepsTheRest(t *testing.T) {
	got, _ := Mask("DATABASE_URL=postgres://app:S3cr3t-P4ss!@db.internal:5432/prod and more", nil)
	if want := "DATABASE_URL=postgres://app:[REDACTED:connection_string]@db.internal:5432/prod and more"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	got, found := Mask("Paste sk-9aB8cD7eF6gH5iJ4kL3mN2oP1qR0sT here; and ghp_R2d2C3poL8sK9mN4bV6cX1zA7qW5eT3yU0iO there.", nil)
	if want := "Paste [REDACTED:openai_key] here; and [REDACTED:github_token] there."; got != want || len(found) != 2 {
		t.Errorf("got %q (%d findings), want %q", got, len(found), want)
	}
}

// Ordinary prose, code and placeholders are not secrets.
func TestMask_NotSecrets(t *testing.T) {
	for _, text := range []string{
		"I forgot my password again, can you help me reset it?",
		"The token economy of the game rewards players with points.",
		"Set API_KEY=<your-key> in the .env file, then run make.",
		`api_key = os.environ["OPENAI_API_KEY"]`,
		"password: changeme123 is the default you must replace",
		"the secret: gardening is mostly patience",
		"Connect with postgres://localhost:5432/app (no password needed).",
		"Use the key-value store; token = next_token(stream)",
		"A sk-short string and a monkey wrench.",
		"Bearer of good news: the keyboard arrived.",
		"The ratio was 3:1 and the pass rate 97%.",
	} {
		if got, found := Mask(text, nil); got != text {
			t.Errorf("Mask(%q) = %q (%+v), want it unchanged", text, got, found)
		}
	}
}

// A bank's allow-list keeps the secrets it names.
func TestMask_Allow(t *testing.T) {
	text := "the public demo key is sk-9aB8cD7eF6gH5iJ4kL3mN2oP1qR0sT"
	if got, _ := Mask(text, []string{"sk-9aB8cD7eF6gH5iJ4kL3mN2oP1qR0sT"}); got != text {
		t.Errorf("allowed secret masked: %q", got)
	}
	if got, _ := Mask(text, []string{"sk-other"}); got == text {
		t.Error("a secret not on the allow-list was kept")
	}
}

// devTurns returns the text of every turn of a dev benchmark file in
// ../shared/data (LoCoMo shape), or skips the test when it is not here.
func devTurns(t testing.TB, name string) []string {
	t.Helper()
	turns, err := readDevTurns(name)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s: %v (the benchmark data is not here)", name, err)
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return turns
}

// readDevTurns returns the text of every turn of a dev benchmark file in
// ../shared/data (LoCoMo shape), read by the importer.
func readDevTurns(name string) ([]string, error) {
	data, err := importer.LoadLoCoMo(filepath.Join("..", "..", "shared", "data", name))
	if err != nil {
		return nil, err
	}
	var turns []string
	for _, c := range data.Conversations {
		for _, s := range c.Sessions {
			for _, turn := range s.Turns {
				turns = append(turns, turn.Text)
			}
		}
	}
	if len(turns) == 0 {
		return nil, errors.New("no turns read")
	}
	return turns, nil
}

// On the dev benchmarks' conversations (ordinary chats, and user ↔
// assistant conversations with code) the firewall touches almost no turn:
// the count is logged, and more than 0.5 % of turns touched fails.
func TestMask_FalsePositivesOnDevData(t *testing.T) {
	for _, name := range []string{"locomo-dev.json", "beam-dev.json"} {
		turns := devTurns(t, name)
		touched := 0
		for _, text := range turns {
			if _, found := Mask(text, nil); len(found) > 0 {
				touched++
				t.Logf("%s: touched: %q", name, oneLine(text))
			}
		}
		t.Logf("%s: %d of %d turns touched", name, touched, len(turns))
		if float64(touched) > 0.005*float64(len(turns)) {
			t.Errorf("%s: %d of %d turns touched, want at most 0.5 %%", name, touched, len(turns))
		}
	}
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

func BenchmarkMask(b *testing.B) {
	text := strings.Repeat("Caroline went to the LGBTQ support group yesterday and said it was powerful. The key to it was patience; the token gesture mattered. ", 400)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Mask(text, nil)
	}
}
