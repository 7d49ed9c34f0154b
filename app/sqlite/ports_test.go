package sqlite

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

func TestStoreServesMemoryUsageAndImagesToTheLLMAdapter(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	mem, err := s.LoadMemory(ctx, "never-stored")
	if err != nil || mem.Summary != "" || mem.Customization != "" || len(mem.Profiles) != 0 {
		t.Errorf("memory of an unknown conversation = %+v (%v); want empty and no error", mem, err)
	}
	if err := s.SaveMemory(ctx, "c", engine.Memory{Summary: "sum", Customization: "pirate", Profiles: map[string]string{"Ann": "tea"}}); err != nil {
		t.Fatal(err)
	}
	mem, err = s.LoadMemory(ctx, "c")
	if err != nil || mem.Summary != "sum" || mem.Customization != "pirate" || mem.Profiles["Ann"] != "tea" {
		t.Errorf("memory of c = %+v (%v); want the stored memory", mem, err)
	}
	if _, err := s.LoadMemory(ctx, ""); err == nil {
		t.Errorf("LoadMemory with an empty id: no error, want one")
	}

	if err := s.RecordUsage(ctx, engine.Usage{Conversation: "c", Model: "grok", Tokens: engine.Tokens{Prompt: 100, Completion: 7}, At: t0}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordUsage(ctx, engine.Usage{Conversation: "c", Model: "grok", Tokens: engine.Tokens{Prompt: -1}}); err == nil {
		t.Errorf("negative usage accepted, want an error")
	}
	totals, err := s.UsageByConversation(ctx, t0, t0.Add(time.Millisecond))
	if err != nil || len(totals) != 1 || totals[0].Tokens.Total() != 107 {
		t.Errorf("usage totals = %+v (%v), want 107 tokens for c", totals, err)
	}

	if _, ok, err := s.LoadImage(ctx, "c", "blob:x"); ok || err != nil {
		t.Errorf("uncached image: ok=%v err=%v, want a miss", ok, err)
	}
	jpeg := []byte{0xff, 0xd8, 0xff, 1, 2, 3}
	if err := s.SaveImage(ctx, "c", "blob:x", engine.PreparedImage{JPEG: jpeg, Width: 448, Height: 300}); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.LoadImage(ctx, "c", "blob:x")
	if err != nil || !ok || !bytes.Equal(got.JPEG, jpeg) || got.Width != 448 || got.Height != 300 {
		t.Errorf("cached image = %+v, ok=%v (%v); want the saved JPEG and size", got, ok, err)
	}
}
