//go:build !linux || android

package native

import "errors"

// PageOutFileMappings does nothing here: only Linux has MADV_PAGEOUT (Windows and macOS
// trim an idle process's working set themselves).
func PageOutFileMappings() (int, error) {
	return 0, errors.New("paging out read-only mappings is a Linux feature")
}
