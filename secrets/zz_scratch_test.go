package secrets

import (
	"fmt"
	"math/rand"
	"syscall"
	"testing"
	"time"
)

func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestScratchBig(t *testing.T) {
	r := NewRedactor()
	det := r.detector()
	in := diffText(1<<20, false)
	b := make([]byte, 1<<20)
	rand.New(rand.NewSource(1)).Read(b)
	rnd := string(b)
	for i := range b {
		b[i] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/= \n"[b[i]%66]
	}
	b64 := string(b)
	for _, size := range []int{4 << 10, 16 << 10, 64 << 10, 1 << 20} {
		for _, name := range []string{"diff", "random", "b64ish"} {
			s := map[string]string{"diff": in, "random": rnd, "b64ish": b64}[name]
			st := cpu()
			scan(det, s, size, 4<<10)
			fmt.Println(size, name, "cpu", time.Since(time.Now().Add(-(cpu() - st))).Round(time.Millisecond))
		}
	}
}
