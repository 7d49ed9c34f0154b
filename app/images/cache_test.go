package images

import (
	"testing"

	"github.com/clanker-desktop/clanker/app/engine"
)

func res(n int) Result {
	return Result{PreparedImage: engine.PreparedImage{JPEG: make([]byte, n), Width: 1, Height: 1}}
}

func TestCacheEvictsLeastRecentlyUsedByBytes(t *testing.T) {
	c := NewCache(100)
	a, b, d := Key{"c1", "blob:a"}, Key{"c1", "blob:b"}, Key{"c1", "blob:d"}
	c.Put(a, res(40))
	c.Put(b, res(40))
	if _, ok := c.Get(a); !ok { // a is now the most recently used
		t.Fatal("want a cached")
	}
	c.Put(d, res(40)) // 120 bytes > 100: b, the least recently used, goes
	if _, ok := c.Get(b); ok {
		t.Error("want b evicted as least recently used")
	}
	if _, ok := c.Get(a); !ok {
		t.Error("want a kept: it was used after b")
	}
	if c.Bytes() != 80 || c.Len() != 2 {
		t.Errorf("want 80 bytes in 2 images, got %d bytes in %d", c.Bytes(), c.Len())
	}
}

func TestCacheKeysByConversationAndSource(t *testing.T) {
	c := NewCache(1000)
	c.Put(Key{"c1", "blob:x"}, res(10))
	if _, ok := c.Get(Key{"c2", "blob:x"}); ok {
		t.Fatal("an image cached for one conversation must not be served to another")
	}
	c.Put(Key{"c2", "blob:y"}, res(10))
	c.DropConversation("c1")
	if _, ok := c.Get(Key{"c1", "blob:x"}); ok {
		t.Error("want c1's images dropped")
	}
	if _, ok := c.Get(Key{"c2", "blob:y"}); !ok {
		t.Error("want c2's images kept")
	}
}

func TestCacheRefusesImageLargerThanCapacityAndReplacesSameKey(t *testing.T) {
	c := NewCache(50)
	c.Put(Key{"c", "big"}, res(51))
	if c.Len() != 0 {
		t.Fatal("an image larger than the cache must not be stored")
	}
	c.Put(Key{"c", "k"}, res(20))
	c.Put(Key{"c", "k"}, res(30))
	if c.Bytes() != 30 || c.Len() != 1 {
		t.Fatalf("re-putting a key must replace it: got %d bytes in %d images", c.Bytes(), c.Len())
	}
}
