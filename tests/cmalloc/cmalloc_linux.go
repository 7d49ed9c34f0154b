//go:build linux && !android

package cmalloc

/*
#include <stdlib.h>

// churn allocates n bytes in 1 KiB blocks, keeps one more block after them so the freed
// space is not at the top of the heap (where free alone would give it back), and frees
// the rest. The kept block is returned for the caller to free later.
static void *churn(size_t n) {
	size_t count = n / 1024;
	void **blocks = malloc(count * sizeof(void *));
	if (!blocks) return NULL;
	for (size_t i = 0; i < count; i++) blocks[i] = malloc(1024);
	void *keep = malloc(64);
	for (size_t i = 0; i < count; i++) free(blocks[i]);
	free(blocks);
	return keep;
}
*/
import "C"

import "unsafe"

// FreedInTheMiddle allocates and frees n bytes in small C blocks below a block that stays
// allocated, and returns a function that frees that last block.
func FreedInTheMiddle(n int) (release func()) {
	keep := C.churn(C.size_t(n))
	return func() { C.free(unsafe.Pointer(keep)) }
}
