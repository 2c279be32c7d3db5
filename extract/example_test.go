package extract_test

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/memory"
)

func ExampleResolveTimeRange() {
	now := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	start, end, ok := extract.ResolveTimeRange("What did Caroline do last June?", now)
	fmt.Println(start.Format("2006-01-02"), end.Format("2006-01-02"), ok)
	// Output: 2022-06-01 2022-07-01 true
}

func ExampleHeuristic_Extract() {
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	res, err := extract.NewHeuristic().Extract(context.Background(), extract.Input{
		At: at,
		Messages: []memory.Message{
			{ID: "D1:1", Speaker: "Caroline", Text: "Hey Mel! Good to see you!"},
			{ID: "D1:2", Speaker: "Caroline", Text: "I went to a LGBTQ support group yesterday."},
		},
	})
	if err != nil {
		panic(err)
	}
	for _, f := range res.Facts {
		fmt.Println(f.SourceRef, f.Kind, f.Category, f.OccurredStart.Format("2006-01-02"))
		for _, e := range f.Entities {
			fmt.Println("  ", e.Type, e.Name)
		}
	}
	// Output:
	// D1:1 world personal 2023-05-08
	//    person Caroline
	//    person Mel
	// D1:2 experience event 2023-05-07
	//    person Caroline
	//    thing LGBTQ
}
