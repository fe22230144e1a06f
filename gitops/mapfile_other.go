//go:build !unix

package gitops

import "os"

// mapFile reads the file whole where mapping is not offered.
func mapFile(path string) ([]byte, func(), error) {
	b, err := os.ReadFile(path)
	return b, func() {}, err
}
