//go:build !providers

package main

import (
	"context"

	"github.com/mnemo-ai/mnemo"
)

// TEMPORARY until provider/anthropic, rerank and wordvec land.
func (p *providerFlags) apply(ctx context.Context, cfg *mnemo.Config) error { return nil }
