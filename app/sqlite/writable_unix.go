//go:build unix

package sqlite

import "golang.org/x/sys/unix"

// canWrite asks the kernel whether this user may write path, which also covers read-only
// mounts and ACLs that the mode bits do not show. (For root it is nearly always yes.)
func canWrite(path string) error {
	return unix.Access(path, unix.W_OK)
}
