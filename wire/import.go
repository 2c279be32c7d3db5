package wire

// Import is what importing a file of items (chat JSONL, LoCoMo) did: the
// items retained and failed, and the lines that could not be read at all.
type Import struct {
	Report   ImportReport `json:"report"`
	Problems []Problem    `json:"problems"`
}

// ImportReport counts an import's items.
type ImportReport struct {
	Items      int             `json:"items"`
	Retained   int             `json:"retained"`
	Duplicates int             `json:"duplicates"`
	Facts      int             `json:"facts"`
	Failed     []ImportFailure `json:"failed,omitempty"`
}

// ImportFailure is an item that failed, with the reason.
type ImportFailure struct {
	Bank  string `json:"bank"`
	Item  string `json:"item"`
	Error string `json:"error"`
}

// Problem is a line of an imported file that was skipped, with the reason.
type Problem struct {
	Line  int    `json:"line"`
	Error string `json:"error"`
}

// ImportBank is what importing a bank export did: the bank created, the
// records read and their count by kind.
type ImportBank struct {
	Bank    string         `json:"bank"`
	Records int            `json:"records"`
	Counts  map[string]int `json:"counts"`
}
