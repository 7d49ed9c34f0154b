//go:build darwin

package session

import "syscall"

// readOnlyVolume reports whether path lies on a volume mounted read-only (a disk image).
func readOnlyVolume(path string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return false
	}
	return st.Flags&0x1 != 0 // MNT_RDONLY
}
