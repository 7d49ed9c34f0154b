//go:build !unix

package sqlite

import (
	"io/fs"
	"os"
)

// canWrite reports a file whose read-only attribute is set (the owner-write bit Go shows for
// it on Windows); folders are taken as writable, since Windows ignores that attribute on them.
func canWrite(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.IsDir() && fi.Mode().Perm()&0o200 == 0 {
		return &fs.PathError{Op: "write", Path: path, Err: fs.ErrPermission}
	}
	return nil
}
