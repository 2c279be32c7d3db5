//go:build !dateparser

package extract

import "time"

// parserDateFunc is nil: the default build does not link go-dateparser
// (see timeexpr_dateparser.go).
var parserDateFunc func(string, []token, time.Time) (timeRange, bool)

// slowCases are what ruleDate makes of the forms or contexts fastDate
// leaves to it. Where go-dateparser reads them otherwise (with -tags
// dateparser, datefast_dateparser_test.go), the rules give the date a
// reader would.
var slowCases = []dateCase{
	{text: "in May the one I love", start: "2023-05-01", end: "2023-06-01"},
	{text: "between 2019 and 2021"},
	{text: "2019-2021"},
	{text: "I paid $2000"},
	{text: "In March at noon", ref: time.Date(2023, 3, 3, 0, 0, 0, 0, time.UTC), start: "2023-03-01", end: "2023-04-01"},
	{text: "Alice ran the Lisbon marathon in March 2021 in 3 hours 5 minutes.", start: "2021-03-01", end: "2021-04-01", fast: true},
	{text: "Alice ran the Lisbon marathon in March 2021 in 4 hours! Then we ate.", start: "2021-03-01", end: "2021-04-01", fast: true},
	{text: "Alice ran the Lisbon marathon in March of 2021 in 3 hours 5 minutes.", start: "2021-03-01", end: "2021-04-01"},
	{text: "Alice ran the Lisbon marathon in March 2021 in 3 hours and it was hard.", start: "2021-03-01", end: "2021-04-01"},
	{text: "Alice ran the Lisbon marathon on 12 May 2022 in 3 hours 5 minutes.", start: "2022-05-12", end: "2022-05-13"},
	{text: "Alice ran the Lisbon marathon in 2019 in 3 hours 5 minutes.", start: "2019-01-01", end: "2020-01-01"},
	{text: "I'm going on a trip on 12/05/2023", start: "2023-12-05", end: "2023-12-06"},
	{text: "on 25/12/2022", start: "2022-12-25", end: "2022-12-26"},
	{text: "on 08.05.2021", start: "2021-05-08", end: "2021-05-09"},
	{text: "since 2021/3", start: "2021-03-01", end: "2021-04-01"},
	{text: "on 2/30/2022"},
	{text: "Monday 12 May 2022", start: "2022-05-12", end: "2022-05-13"},
	{text: "on 31 February 2022"},
	{text: "in February", ref: time.Date(2024, 1, 30, 16, 0, 0, 0, time.UTC), start: "2023-02-01", end: "2023-03-01"},
	{text: "in late May", start: "2023-05-01", end: "2023-06-01"},
	{text: "twenty days ago", start: "2023-04-18", end: "2023-04-19"},
	{text: "I moved in two years ago", start: "2021-01-01", end: "2022-01-01"},
	{text: "on Monday we went", start: "2023-05-01", end: "2023-05-02"},
	{text: "on Friday a friend came", start: "2023-05-05", end: "2023-05-06"},
	{text: "before in 2021 we left", start: "2021-01-01", end: "2022-01-01"},
	{text: "I was there on 8 May, 2023 and again last Friday", start: "2023-05-08", end: "2023-05-09"},
	{text: "in 2 weeks we leave", start: "2023-05-22", end: "2023-05-29"},
	{text: "in three months", start: "2023-08-01", end: "2023-09-01"},
	{text: "I will see her in 10 days", start: "2023-05-18", end: "2023-05-19"},
}
