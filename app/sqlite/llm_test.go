package sqlite

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/images"
	"github.com/clanker-desktop/clanker/app/llm"
)

func TestLLMViewLoadsMemoryRecordsUsageAndCachesImages(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	l := s.LLM()
	sum, cust, prof, err := l.LoadContext(ctx, "never-stored")
	if err != nil || sum != "" || cust != "" || len(prof) != 0 {
		t.Errorf("memory of an unknown conversation = %q, %q, %v (%v); want empty and no error", sum, cust, prof, err)
	}
	if err := s.SaveMemory(ctx, "c", engine.Memory{Summary: "sum", Customization: "pirate", Profiles: map[string]string{"Ann": "tea"}}); err != nil {
		t.Fatal(err)
	}
	sum, cust, prof, err = l.LoadContext(ctx, "c")
	if err != nil || sum != "sum" || cust != "pirate" || prof["Ann"] != "tea" {
		t.Errorf("memory of c = %q, %q, %v (%v); want the stored memory", sum, cust, prof, err)
	}
	if _, _, _, err := l.LoadContext(ctx, ""); err == nil {
		t.Errorf("LoadContext with an empty id: no error, want one")
	}

	if err := l.RecordUsage(ctx, llm.UsageRecord{Conversation: "c", Model: "grok", PromptTokens: 100, CompletionTokens: 7, At: t0}); err != nil {
		t.Fatal(err)
	}
	if err := l.RecordUsage(ctx, llm.UsageRecord{Conversation: "c", Model: "grok", PromptTokens: -1}); err == nil {
		t.Errorf("negative usage accepted, want an error")
	}
	totals, err := s.UsageByConversation(ctx, t0, t0.Add(time.Millisecond))
	if err != nil || len(totals) != 1 || totals[0].Tokens.Total() != 107 {
		t.Errorf("usage totals = %+v (%v), want 107 tokens for c", totals, err)
	}

	if _, ok, err := l.LoadImage(ctx, "c", "blob:x"); ok || err != nil {
		t.Errorf("uncached image: ok=%v err=%v, want a miss", ok, err)
	}
	jpeg := []byte{0xff, 0xd8, 0xff, 1, 2, 3}
	if err := l.SaveImage(ctx, "c", "blob:x", images.Result{JPEG: jpeg, Width: 448, Height: 300}); err != nil {
		t.Fatal(err)
	}
	got, ok, err := l.LoadImage(ctx, "c", "blob:x")
	if err != nil || !ok || !bytes.Equal(got.JPEG, jpeg) || got.Width != 448 || got.Height != 300 {
		t.Errorf("cached image = %+v, ok=%v (%v); want the saved JPEG and size", got, ok, err)
	}
}
