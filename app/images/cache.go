package images

import (
	"container/list"
	"sync"
)

// Key names one image: the conversation it was seen in and its source (the
// blob URL or message image reference). Keying by conversation keeps one
// conversation's images from ever being served into another.
type Key struct {
	Conversation string
	Src          string
}

// Cache is an in-memory least-recently-used cache of optimised images,
// bounded by the total JPEG bytes it holds. It is safe for concurrent use.
// The SQLite store keeps the persistent copy; this one saves re-decoding
// when the model asks for the same image twice in a row.
type Cache struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	order    *list.List // front = most recently used
	items    map[Key]*list.Element
}

type cacheEntry struct {
	key Key
	res Result
}

// NewCache returns a cache that holds at most maxBytes of JPEG data.
func NewCache(maxBytes int) *Cache {
	return &Cache{maxBytes: maxBytes, order: list.New(), items: map[Key]*list.Element{}}
}

// Get returns the cached image for k and marks it recently used.
func (c *Cache) Get(k Key) (Result, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok {
		return Result{}, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheEntry).res, true
}

// Put stores r under k, evicting the least recently used images until the
// total fits. An image larger than the whole cache is not stored.
func (c *Cache) Put(k Key, r Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		c.remove(el)
	}
	if len(r.JPEG) > c.maxBytes {
		return
	}
	c.items[k] = c.order.PushFront(&cacheEntry{key: k, res: r})
	c.bytes += len(r.JPEG)
	for c.bytes > c.maxBytes {
		c.remove(c.order.Back())
	}
}

// DropConversation forgets every image of one conversation (used when the
// user purges it).
func (c *Cache) DropConversation(conversation string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, el := range c.items {
		if k.Conversation == conversation {
			c.remove(el)
		}
	}
}

// Bytes reports the JPEG bytes currently held.
func (c *Cache) Bytes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// Len reports the number of images held.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

func (c *Cache) remove(el *list.Element) {
	e := el.Value.(*cacheEntry)
	c.order.Remove(el)
	delete(c.items, e.key)
	c.bytes -= len(e.res.JPEG)
}
