//go:build cgo

// With cgo the program is linked against the C library (and so can be
// preloaded); its file I/O is still Go's own syscalls.
package main

// int smallio_cgo_linked(void) { return 1; }
import "C"

var _ = C.smallio_cgo_linked
