package page

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

func chunks(id string, data []byte, size int) []ImageChunk {
	var out []ImageChunk
	total := (len(data) + size - 1) / size
	for i := 0; i < total; i++ {
		end := min((i+1)*size, len(data))
		out = append(out, ImageChunk{ID: id, Index: i, Total: total, Data: base64.StdEncoding.EncodeToString(data[i*size : end])})
	}
	return out
}

func okResult(id string, size, n int) Result {
	d, _ := json.Marshal(ImageResult{Mime: "image/jpeg", Size: size, Chunks: n})
	return Result{ID: id, Command: "fetch_image", OK: true, Data: d}
}

func TestImageAssemblyJoinsChunksInIndexOrder(t *testing.T) {
	data := bytes.Repeat([]byte{0xFF, 0xD8, 1, 2, 3}, 50000)
	cs := chunks("c1", data, ImageChunkBytes)
	a := NewImageAssembly("c1")
	for i := len(cs) - 1; i >= 0; i-- { // arrival order must not matter
		if err := a.Add(cs[i]); err != nil {
			t.Fatal(err)
		}
	}
	got, mime, err := a.Finish(okResult("c1", len(data), len(cs)))
	if err != nil || mime != "image/jpeg" || !bytes.Equal(got, data) {
		t.Fatalf("Finish = %d bytes, %q, %v; want the %d original bytes", len(got), mime, err, len(data))
	}
}

func TestImageAssemblyRefusesInconsistentPieces(t *testing.T) {
	data := make([]byte, 3*ImageChunkBytes)
	cs := chunks("c1", data, ImageChunkBytes)
	a := NewImageAssembly("c1")
	if err := a.Add(ImageChunk{ID: "c2", Total: 1}); err == nil {
		t.Error("accepted a chunk of another command")
	}
	_ = a.Add(cs[0])
	if err := a.Add(cs[0]); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate chunk: %v", err)
	}
	if err := a.Add(ImageChunk{ID: "c1", Index: 5, Total: 6}); err == nil {
		t.Error("accepted a chunk with a different total")
	}
	if _, _, err := a.Finish(okResult("c1", len(data), 3)); err == nil || !strings.Contains(err.Error(), "1 of 3 chunks") {
		t.Errorf("Finish with missing chunks: %v", err)
	}
	if _, _, err := NewImageAssembly("c9").Finish(Result{ID: "c9", OK: false, Code: "image_gone", Error: "revoked"}); err == nil || !strings.Contains(err.Error(), "image_gone") {
		t.Errorf("failed result: %v", err)
	}
}
