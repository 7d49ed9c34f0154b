package main

import (
	"bytes"
	"encoding/binary"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// The committed icons must be exactly what the generator draws, so nobody edits a PNG by
// hand and loses it at the next generate.
func TestCommittedIconsMatchTheGenerator(t *testing.T) {
	dir := t.TempDir()
	if err := generate(dir); err != nil {
		t.Fatal(err)
	}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		want, _ := os.ReadFile(p)
		got, err := os.ReadFile(filepath.Join("..", "..", rel))
		if err != nil {
			t.Errorf("%s is not committed: run go generate ./build/icons", rel)
			return nil
		}
		if !bytes.Equal(got, want) {
			t.Errorf("build/%s differs from the generator's output: run go generate ./build/icons", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestICOEntriesArePNGsOfTheListedSizes(t *testing.T) {
	sizes := []int{16, 32, 256}
	ico, err := ICO(onColors, sizes)
	if err != nil {
		t.Fatal(err)
	}
	if n := binary.LittleEndian.Uint16(ico[4:]); int(n) != len(sizes) {
		t.Fatalf("ico has %d entries, want %d", n, len(sizes))
	}
	for i, want := range sizes {
		e := ico[6+16*i:]
		size := binary.LittleEndian.Uint32(e[8:])
		off := binary.LittleEndian.Uint32(e[12:])
		cfg, err := png.DecodeConfig(bytes.NewReader(ico[off : off+size]))
		if err != nil {
			t.Fatalf("entry %d is not a PNG: %v", i, err)
		}
		if cfg.Width != want || cfg.Height != want {
			t.Fatalf("entry %d is %dx%d, want %dx%d", i, cfg.Width, cfg.Height, want, want)
		}
	}
	if _, err := ICO(onColors, []int{512}); err == nil {
		t.Fatal("a 512 px ICO entry was accepted; ICO entries stop at 256")
	}
}

func TestICNSLengthsAddUp(t *testing.T) {
	icns := ICNS(offColors)
	if string(icns[:4]) != "icns" || int(binary.BigEndian.Uint32(icns[4:])) != len(icns) {
		t.Fatalf("icns header does not describe the file (len %d)", len(icns))
	}
	count := 0
	for off := 8; off < len(icns); count++ {
		n := int(binary.BigEndian.Uint32(icns[off+4:]))
		if n < 8 || off+n > len(icns) {
			t.Fatalf("chunk %d at %d has bad length %d", count, off, n)
		}
		if _, err := png.DecodeConfig(bytes.NewReader(icns[off+8 : off+n])); err != nil {
			t.Fatalf("chunk %s is not a PNG: %v", icns[off:off+4], err)
		}
		off += n
	}
	if count != 7 {
		t.Fatalf("icns has %d chunks, want 7 (16..1024 px)", count)
	}
}

func TestOnAndOffIconsDiffer(t *testing.T) {
	if bytes.Equal(encodePNG(Draw(32, onColors)), encodePNG(Draw(32, offColors))) {
		t.Fatal("on and off tray icons are identical")
	}
}
