package mnemo_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
)

func ExampleOpen() {
	dir, err := os.MkdirTemp("", "mnemo-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: filepath.Join(dir, "memory.db")})
	if err != nil {
		panic(err)
	}
	defer eng.Close()

	res, err := eng.Retain(ctx, memory.RetainRequest{Text: "Alice moved to Lisbon in May. She loves the sea."})
	if err != nil {
		panic(err)
	}
	fmt.Println("facts:", res.Facts)

	banks, err := eng.Banks(ctx)
	if err != nil {
		panic(err)
	}
	for _, b := range banks {
		fmt.Println("bank:", b.Name)
	}
	// Output:
	// facts: 2
	// bank: default
}

func ExampleEngine_Recall() {
	dir, err := os.MkdirTemp("", "mnemo-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: filepath.Join(dir, "memory.db")})
	if err != nil {
		panic(err)
	}
	defer eng.Close()

	said := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	_, err = eng.Retain(ctx, memory.RetainRequest{At: said, Messages: []memory.Message{
		{Speaker: "Caroline", Text: "I went to the LGBTQ support group yesterday."},
		{Speaker: "Melanie", Text: "I painted a sunrise over the lake last week."},
		{Speaker: "Caroline", Text: "I'm researching adoption agencies."},
	}})
	if err != nil {
		panic(err)
	}

	rec, err := eng.Recall(ctx, memory.Query{Text: "What did Melanie paint?", Now: said})
	if err != nil {
		panic(err)
	}
	fmt.Println(rec.Results[0].Fact.Text)
	// Output: I painted a sunrise over the lake last week.
}

func ExampleEngine_Import() {
	dir, err := os.MkdirTemp("", "mnemo-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: filepath.Join(dir, "memory.db")})
	if err != nil {
		panic(err)
	}
	defer eng.Close()

	rep, err := eng.Import(ctx, []memory.RetainRequest{
		{BankID: "alice", ItemID: "note-1", Text: "Alice moved to Lisbon."},
		{BankID: "bob", ItemID: "note-1", Text: "Bob plays the cello."},
		{BankID: "bob", ItemID: "note-2", Text: "   "},
	}, mnemo.ImportOptions{CreateBanks: true})
	if err != nil {
		panic(err)
	}
	fmt.Println("retained:", rep.Retained)
	for _, f := range rep.Failed {
		fmt.Printf("failed: %s/%s: %s\n", f.Bank, f.Item, f.Error)
	}
	// Output:
	// retained: 2
	// failed: bob/note-2: nothing to remember: the text is empty
}
