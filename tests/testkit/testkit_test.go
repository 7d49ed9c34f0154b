package testkit

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"testing/synctest"
	"time"
)

func TestDrawIsReproducibleAndFollowsTheWeights(t *testing.T) {
	weights := []Weighted[string]{{"often", 8}, {"rarely", 2}, {"never", 0}}
	draw := func(seed uint64) []string {
		rng := rand.New(rand.NewPCG(seed, 1))
		return Draw(rng, 2000, weights, func(k string) string { return k })
	}
	a, b := draw(7), draw(7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed drew two different lists")
	}
	count := map[string]int{}
	for _, k := range a {
		count[k]++
	}
	if count["never"] != 0 || count["rarely"] < 250 || count["rarely"] > 550 || count["often"] < 1450 {
		t.Errorf("counts %v, want about 1600 often, 400 rarely and no never", count)
	}
}

func TestSeedsRunsOneOrAll(t *testing.T) {
	if got := Seeds(9, 3); !reflect.DeepEqual(got, []uint64{9}) {
		t.Errorf("Seeds(9, 3) = %v, want [9]", got)
	}
	if got := Seeds(0, 3); !reflect.DeepEqual(got, []uint64{1, 2, 3}) {
		t.Errorf("Seeds(0, 3) = %v, want [1 2 3]", got)
	}
}

func TestPollGivesUpAfterTheTimeoutWithTheLastDescription(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start, n := time.Now(), 0
		ok, last := Poll(time.Second, func() (bool, string) { n++; return false, fmt.Sprintf("try %d", n) })
		waited := time.Since(start)
		if ok || last != fmt.Sprintf("try %d", n) || n < 2 {
			t.Errorf("Poll = %v, %q after %d tries; want false with the last try's description", ok, last, n)
		}
		if waited < time.Second || waited > time.Second+2*pollEvery {
			t.Errorf("Poll gave up after %v, want just over the 1s timeout", waited)
		}
		start = time.Now()
		if ok, _ := Poll(time.Hour, func() (bool, string) { return true, "" }); !ok || time.Since(start) != 0 {
			t.Errorf("a condition that holds: Poll = %v after %v, want true at once", ok, time.Since(start))
		}
	})
}
