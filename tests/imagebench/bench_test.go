package imagebench

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	xdraw "golang.org/x/image/draw"

	"github.com/clanker-desktop/clanker/app/images"
	"github.com/clanker-desktop/clanker/tests/browser"
)

// reportQuality adds the PSNR of out against p's reference as metrics.
func reportQuality(b *testing.B, p photo, out []byte) {
	b.Helper()
	ref, err := referenceOf(p)
	if err != nil {
		b.Fatal(err)
	}
	y, rgb, err := ref.psnr(out)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(y, "PSNR-Y-dB")
	b.ReportMetric(rgb, "PSNR-RGB-dB")
	b.ReportMetric(float64(len(out))/1024, "out-KiB")
}

// BenchmarkOptimize12MP is the production optimiser, images.Optimizer with its default limits, on each 12 MP photo
// (<photo>), each followed at once by Chromium's canvas doing the same job on the same
// bytes (<photo>-canvas): on a shared machine whose load comes and goes, the two figures
// a ratio is made of are then measured minutes apart at most, not a whole benchmark run.
func BenchmarkOptimize12MP(b *testing.B) { benchOptimizeAndCanvas(b, photos) }

// BenchmarkOptimize2MP is images.Optimizer (default limits) and the canvas on the 1600x1200 photo.
func BenchmarkOptimize2MP(b *testing.B) { benchOptimizeAndCanvas(b, photos2MP) }

func benchOptimizeAndCanvas(b *testing.B, list []photo) {
	for _, p := range list {
		benchOptimize(b, p)
		benchCanvas(b, p)
	}
}

func benchOptimize(b *testing.B, p photo) {
	b.Run(string(p), func(b *testing.B) {
		data := p.bytes()
		tw, th := p.target()
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		var out []byte
		for b.Loop() {
			res, err := images.Optimizer{}.Optimize(data)
			if err != nil || res.Width != tw || res.Height != th {
				b.Fatalf("Optimize: %v (%dx%d, want %dx%d)", err, res.Width, res.Height, tw, th)
			}
			out = res.JPEG
		}
		reportQuality(b, p, out)
	})
}

// BenchmarkOptimize12MPBaseline is the plain way to do the same in Go: image/jpeg decode,
// golang.org/x/image/draw's CatmullRom scaling of the decoded image straight into an RGBA
// of the target size (draw.Src), image/jpeg at quality 80.
func BenchmarkOptimize12MPBaseline(b *testing.B) { benchBaseline(b, photos) }

// BenchmarkOptimize2MPBaseline is the baseline on the 1600x1200 photo.
func BenchmarkOptimize2MPBaseline(b *testing.B) { benchBaseline(b, photos2MP) }

func benchBaseline(b *testing.B, list []photo) {
	for _, p := range list {
		b.Run(string(p), func(b *testing.B) {
			data := p.bytes()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var out []byte
			for b.Loop() {
				src, err := jpeg.Decode(bytes.NewReader(data))
				if err != nil {
					b.Fatal(err)
				}
				w, h := images.TargetSize(src.Bounds().Dx(), src.Bounds().Dy())
				dst := image.NewRGBA(image.Rect(0, 0, w, h))
				xdraw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), xdraw.Src, nil)
				var buf bytes.Buffer
				if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: images.Quality}); err != nil {
					b.Fatal(err)
				}
				out = buf.Bytes()
			}
			reportQuality(b, p, out)
		})
	}
}

// canvasPage shrinks the photo the way a browser extension does: a new Image from a blob
// URL, drawn onto a canvas of the target size, toDataURL('image/jpeg', 0.8). It returns
// the milliseconds that took by the page's clock, and the data URL when asked.
const canvasPage = `<!doctype html><meta charset="utf-8"><title>canvas</title><script>
var blob = null;
async function shrink(w, h, wantData) {
  if (!blob) blob = await (await fetch('/photo.jpg')).blob();
  var t0 = performance.now();
  var url = URL.createObjectURL(blob);
  var img = new Image();
  await new Promise(function(ok, fail) { img.onload = ok; img.onerror = fail; img.src = url; });
  var c = document.createElement('canvas');
  c.width = w; c.height = h;
  c.getContext('2d').drawImage(img, 0, 0, w, h);
  var data = c.toDataURL('image/jpeg', 0.8);
  var ms = performance.now() - t0;
  URL.revokeObjectURL(url);
  return {ms: ms, data: wantData ? data : ''};
}
</script>`

// benchCanvas is the same job in headless Chromium's canvas, for reference: ns/op is the
// page's own time for decode, draw and encode (the DevTools round trip is left out), after
// one warm-up run.
func benchCanvas(b *testing.B, p photo) {
	b.Run(string(p)+"-canvas", func(b *testing.B) {
		data := p.bytes()
		tw, th := p.target()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/photo.jpg" {
				w.Header().Set("Content-Type", "image/jpeg")
				w.Write(data)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, canvasPage)
		}))
		b.Cleanup(srv.Close)
		br := browser.New(b)
		ctx := br.Context()
		browser.Run(b, ctx, "open canvas page", chromedp.Navigate(srv.URL+"/"))
		type shrunk struct {
			Ms   float64 `json:"ms"`
			Data string  `json:"data"`
		}
		shrink := func(wantData bool) shrunk {
			var s shrunk
			browser.Run(b, ctx, "shrink on canvas", chromedp.Evaluate(fmt.Sprintf("shrink(%d, %d, %v)", tw, th, wantData), &s,
				func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
			return s
		}
		first := shrink(true) // warm-up, and the output whose quality is reported
		var total float64
		n := 0
		for b.Loop() {
			total += shrink(false).Ms
			n++
		}
		b.ReportMetric(total/float64(n)*1e6, "ns/op")
		const prefix = "data:image/jpeg;base64,"
		if !strings.HasPrefix(first.Data, prefix) {
			b.Fatalf("canvas returned %.40q, want a JPEG data URL", first.Data)
		}
		out, err := base64.StdEncoding.DecodeString(first.Data[len(prefix):])
		if err != nil {
			b.Fatal(err)
		}
		reportQuality(b, p, out)
	})
}

// BenchmarkOptimize12MPHeap optimises 20 photos in a row (the two photos alternately) and
// reports the heap the optimiser needs on top of what the process held before: heap-inuse
// is the largest HeapInuse after any of the 20, heap-held the largest HeapSys minus
// HeapReleased, the heap memory taken from the system and not given back, which also
// covers the peak inside each call. The target is 64 MiB.
func BenchmarkOptimize12MPHeap(b *testing.B) {
	var inputs [][]byte
	for _, p := range heapPhotos {
		inputs = append(inputs, p.bytes())
	}
	var inuse, held float64
	for b.Loop() {
		goruntime.GC()
		debug.FreeOSMemory()
		var ms goruntime.MemStats
		goruntime.ReadMemStats(&ms)
		baseInuse, baseHeld := ms.HeapInuse, ms.HeapSys-ms.HeapReleased
		for i := range 20 {
			if _, err := (images.Optimizer{}).Optimize(inputs[i%len(inputs)]); err != nil {
				b.Fatal(err)
			}
			goruntime.ReadMemStats(&ms)
			inuse = max(inuse, float64(ms.HeapInuse)-float64(baseInuse))
			held = max(held, float64(ms.HeapSys-ms.HeapReleased)-float64(baseHeld))
		}
	}
	b.ReportMetric(inuse/(1<<20), "heap-inuse-MiB")
	b.ReportMetric(held/(1<<20), "heap-held-MiB")
}
