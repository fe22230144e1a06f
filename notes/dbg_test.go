package notes

import (
	"fmt"
	"testing"
	"time"
)

func TestDbgIndex(t *testing.T) {
	for _, names := range []bool{true, false} { for _, n := range []int{10000, 50000} {
		srcs := benchVault(n, 200, names)
		var texts [][]rune
		for _, s := range srcs {
			for _, f := range ScanSource(s, "") {
				texts = append(texts, NormalizeFollowup(f.Text))
			}
		}
		st := time.Now()
		idx := &simIndex{theta: 0.85, texts: texts}
		pairs := 0
		idx.pairs(nil, func(i, j int) { pairs++ })
		fmt.Println(names, n, "pairs", pairs, time.Since(st))
		st = time.Now()
		d := Regenerate(srcs, MergeOptions{})
		fmt.Println("regen", time.Since(st), d.Audit.Merged, d.Audit.Resolved)
	}
}}
