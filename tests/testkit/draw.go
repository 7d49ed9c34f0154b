package testkit

import "math/rand/v2"

// Weighted is one kind of event and how often it is drawn relative to the others.
type Weighted[K any] struct {
	Kind K
	N    int
}

// Draw makes a list of n events from rng: each one's kind is drawn with a probability
// proportional to its weight, then draw makes the event, drawing its own parameters from the
// same rng. The draws happen in that order for every event, so a seed always gives the same
// list.
func Draw[K, E any](rng *rand.Rand, n int, weights []Weighted[K], draw func(K) E) []E {
	total := 0
	for _, w := range weights {
		total += w.N
	}
	evs := make([]E, 0, n)
	for range n {
		r := rng.IntN(total)
		var k K
		for _, w := range weights {
			if r < w.N {
				k = w.Kind
				break
			}
			r -= w.N
		}
		evs = append(evs, draw(k))
	}
	return evs
}

// Seeds is the list of seeds a chaos run plays: only one when one is set, otherwise 1..count.
func Seeds(one uint64, count int) []uint64 {
	if one != 0 {
		return []uint64{one}
	}
	seeds := make([]uint64, 0, count)
	for s := 1; s <= count; s++ {
		seeds = append(seeds, uint64(s))
	}
	return seeds
}
