// smallio, in Go: the twin of tests/progs/rec_smallio.c. 1000 one-byte
// writes to a file, then 200 reopens of it each reading one byte. Built
// static (CGO_ENABLED=0, Go's default) and, with cgo.go, linked against the
// C library (CGO_ENABLED=1), where its writes still bypass libc: Go makes
// its own syscalls.
package main

import "os"

func main() {
	path := "smallio_go.dat"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0644)
	if err != nil {
		os.Exit(2)
	}
	b := []byte("x")
	for i := 0; i < 1000; i++ {
		if _, err := f.Write(b); err != nil {
			os.Exit(3)
		}
	}
	f.Close()
	for i := 0; i < 200; i++ {
		g, err := os.Open(path)
		if err != nil {
			os.Exit(4)
		}
		if _, err := g.Read(b); err != nil {
			os.Exit(4)
		}
		g.Close()
	}
}
