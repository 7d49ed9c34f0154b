//go:build linux && !android

package native

/*
#include <malloc.h>
*/
import "C"

// TrimCHeap hands the C heap's free pages back to the system (glibc's malloc_trim: the top
// of every arena and the free pages inside them). GTK, WebKit's UI side, cairo and the
// fonts allocate there, and glibc otherwise keeps what a burst of work freed. It reports
// whether anything was returned.
func TrimCHeap() bool { return C.malloc_trim(0) == 1 }
