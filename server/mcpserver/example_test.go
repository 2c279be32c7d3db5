package mcpserver_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/server/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An agent remembers a fact through the retain tool and recalls it.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "mnemo-example-")
	defer os.RemoveAll(dir)
	eng, err := mnemo.Open(ctx, mnemo.Config{DB: filepath.Join(dir, "memory.db")})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()
	quiet := slog.New(slog.DiscardHandler)
	srv := mcpserver.New(eng, mcpserver.Options{Logger: quiet})

	// In a program: srv.Run(ctx, os.Stdin, os.Stdout), or mount
	// srv.Handler() at /mcp. Here a client connects in memory.
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	for _, c := range []mcp.CallToolParams{
		{Name: "remember", Arguments: map[string]any{"text": "Alice moved to Lisbon.", "occurred_at": "2024-05-02"}},
		{Name: "recall", Arguments: map[string]any{"query": "Where does Alice live?"}},
	} {
		res, err := cs.CallTool(ctx, &c)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// Remembered in bank "default": 1 fact, 1 entity.
	// Memories from bank "default", best first:
	// - [2024-05-02] Alice moved to Lisbon.
}
