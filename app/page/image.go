package page

import (
	"encoding/base64"
	"fmt"

	"github.com/clanker-desktop/clanker/app/engine"
)

// ImageResult is the data of a successful fetch_image result.
type ImageResult struct {
	Mime   string `json:"mime"`
	Size   int    `json:"size"`
	Chunks int    `json:"chunks"`
}

// ImageAssembly collects the image_chunk events of one fetch_image command and checks
// them against its result, so a page cannot smuggle in extra, missing, reordered or
// oversized pieces.
type ImageAssembly struct {
	id    string
	total int
	parts [][]byte
	have  int
	size  int
}

// NewImageAssembly starts collecting the chunks of command id.
func NewImageAssembly(id string) *ImageAssembly { return &ImageAssembly{id: id} }

// Add takes one chunk. Chunks of other commands are refused (the caller routes by id).
func (a *ImageAssembly) Add(c ImageChunk) error {
	if c.ID != a.id {
		return fmt.Errorf("image chunk for command %q, collecting %q", engine.Clip(c.ID, maxQuoted), a.id)
	}
	if a.total == 0 {
		a.total = c.Total
		a.parts = make([][]byte, c.Total)
	}
	if c.Total != a.total || c.Index < 0 || c.Index >= a.total {
		return fmt.Errorf("image chunk %d of %d does not fit %d chunks", c.Index, c.Total, a.total)
	}
	if a.parts[c.Index] != nil {
		return fmt.Errorf("image chunk %d sent twice", c.Index)
	}
	b, err := base64.StdEncoding.DecodeString(c.Data)
	if err != nil {
		return fmt.Errorf("image chunk %d: %w", c.Index, err)
	}
	if len(b) > ImageChunkBytes {
		return fmt.Errorf("image chunk %d has %d bytes, limit %d", c.Index, len(b), ImageChunkBytes)
	}
	if a.size+len(b) > MaxImageBytes {
		return fmt.Errorf("image is over %d bytes", MaxImageBytes)
	}
	a.parts[c.Index] = b
	a.have++
	a.size += len(b)
	return nil
}

// Finish checks the command's result against the chunks and returns the image bytes and
// MIME type. A failed result comes back as an error carrying the bridge's code.
func (a *ImageAssembly) Finish(r Result) ([]byte, string, error) {
	if r.ID != a.id {
		return nil, "", fmt.Errorf("result for command %q, collecting %q", engine.Clip(r.ID, maxQuoted), a.id)
	}
	if !r.OK {
		return nil, "", fmt.Errorf("fetch image: %s: %s", r.Code, r.Error)
	}
	var meta ImageResult
	if err := strictUnmarshal(r.Data, &meta); err != nil {
		return nil, "", fmt.Errorf("fetch image result: %w", err)
	}
	if meta.Chunks != a.total || a.have != a.total || meta.Size != a.size {
		return nil, "", fmt.Errorf("fetch image: result says %d bytes in %d chunks, received %d bytes in %d of %d chunks",
			meta.Size, meta.Chunks, a.size, a.have, a.total)
	}
	out := make([]byte, 0, a.size)
	for _, p := range a.parts {
		out = append(out, p...)
	}
	return out, meta.Mime, nil
}
