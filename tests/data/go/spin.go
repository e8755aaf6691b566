// A Go program for the tests of Go's function table (.gopclntab):
// tests/symbolize.sh names its functions built stripped, tests/profrec.sh
// samples it. Its hot code: main.hashLoop (crypto/sha256's assembly
// block function) and main.sortLoop (sort.(*IntSlice).Less, a method of
// a pointer receiver). It runs for argv[1] milliseconds (default 700).
package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"sort"
	"strconv"
	"time"
)

//go:noinline
func hashLoop(n int) [32]byte {
	var h [32]byte
	for i := 0; i < n; i++ {
		h = sha256.Sum256(h[:])
	}
	return h
}

//go:noinline
func sortLoop(n int) int {
	s := make(sort.IntSlice, 4096)
	t := 0
	for i := 0; i < n; i++ {
		for j := range s {
			s[j] = (j*7919 + i) % 4096
		}
		sort.Sort(s)
		t += s[0]
	}
	return t
}

func main() {
	ms := 700
	if len(os.Args) > 1 {
		ms, _ = strconv.Atoi(os.Args[1])
	}
	end := time.Now().Add(time.Duration(ms) * time.Millisecond)
	var h [32]byte
	t := 0
	for time.Now().Before(end) {
		h = hashLoop(2000)
		t += sortLoop(2)
	}
	fmt.Fprintln(os.Stderr, h[0], t)
}
