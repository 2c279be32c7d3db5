package langchaingo_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms/fake"

	"github.com/mnemo-ai/mnemo"
	mnemolc "github.com/mnemo-ai/mnemo/adapters/langchaingo"
)

// A conversation chain with mnemo as its memory: what one chat said is
// in the next chat's prompt, even in a new process (the bank is a file).
// The model here is langchaingo's scripted fake, so the example runs
// offline; any langchaingo model works the same way.
func Example() {
	dir, _ := os.MkdirTemp("", "mnemo-langchaingo")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: filepath.Join(dir, "memory.db")})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()

	mem := mnemolc.New(eng, "")
	llm := fake.NewFakeLLM([]string{"Noted: Miso, a tabby.", "Your cat is Miso."})
	chat := chains.NewConversation(llm, mem)

	if _, err := chains.Run(ctx, chat, "My cat is called Miso and she is a tabby."); err != nil {
		log.Fatal(err)
	}
	// A later chat: the memory recalls the cat for the prompt.
	vars, err := mem.LoadMemoryVariables(ctx, map[string]any{"input": "What is my cat called?"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Contains(vars["history"].(string), "Miso"))
	// Output: true
}
