package wire

// RecallPage is one page of a recall as the MCP recall tool serves it:
// the facts of the page that fit the token budget (and, on the first
// page, the observations), the tokens the page takes, and where the next
// page starts; NextOffset is absent on the last page. The page's context
// text is not repeated here: it is the tool result's text content.
type RecallPage struct {
	Bank         string         `json:"bank"`
	Observations []Observation  `json:"observations,omitempty"`
	Results      []RecallResult `json:"results"`
	Tokens       int            `json:"tokens"`
	Offset       int            `json:"offset"`
	NextOffset   int            `json:"next_offset,omitempty"`
}

// Retained is what a retain through a tool did: Stored says whether
// anything was written (false while an approval is pending or after the
// user declined), Result what the write did, Message a sentence for the
// agent saying what happened and what to do next.
type Retained struct {
	Bank    string        `json:"bank"`
	Stored  bool          `json:"stored"`
	Pending bool          `json:"pending,omitempty"`
	Result  *RetainResult `json:"result,omitempty"`
	Message string        `json:"message"`
}
