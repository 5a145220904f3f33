package connect

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRelinkOrder: at the start the addresses go in the order given; after a link ended, every
// other address comes first about as often (the desktops of a dead replica spread), the one
// that ended last, each address once.
func TestRelinkOrder(t *testing.T) {
	if got := relinkOrder(-1, 3, rand.IntN); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("start: %v", got)
	}
	if got := relinkOrder(0, 1, rand.IntN); !slices.Equal(got, []int{0}) {
		t.Errorf("one address: %v", got)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	const draws = 3000
	first := map[int]int{}
	for range draws {
		got := relinkOrder(1, 4, rnd.IntN)
		sorted := slices.Sorted(slices.Values(got))
		if !slices.Equal(sorted, []int{0, 1, 2, 3}) || got[3] != 1 {
			t.Fatalf("order %v: want each address once, 1 last", got)
		}
		first[got[0]]++
	}
	for _, a := range []int{0, 2, 3} {
		if n := first[a]; n < draws/3-150 || n > draws/3+150 {
			t.Errorf("address %d came first %d times of %d, want about a third: %v", a, n, draws, first)
		}
	}
}
