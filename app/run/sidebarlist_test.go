package run

import (
	"context"
	"log/slog"
	"reflect"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

type savedLists struct {
	mu    sync.Mutex
	saves []map[string]string
}

func (s *savedLists) SaveSidebarList(_ context.Context, list map[string]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saves = append(s.saves, list)
	return nil
}

func (s *savedLists) got() []map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]string(nil), s.saves...)
}

// Lists handed over within one interval make one write, of the latest; what is left when
// the app closes is written then, and nothing after.
func TestTheSidebarListIsKeptOncePerIntervalAndOnClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &savedLists{}
		k := &listKeeper{store: st, log: slog.New(slog.DiscardHandler), interval: 5 * time.Second}
		k.keep(map[string]string{"c1": "a"})
		time.Sleep(time.Second)
		k.keep(map[string]string{"c1": "b"})
		time.Sleep(3999 * time.Millisecond)
		synctest.Wait()
		if n := len(st.got()); n != 0 {
			t.Fatalf("%d writes before the interval passed, want 0", n)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if got, want := st.got(), []map[string]string{{"c1": "b"}}; !reflect.DeepEqual(got, want) {
			t.Fatalf("writes after the interval = %v, want only the latest %v", got, want)
		}
		time.Sleep(time.Minute)
		if n := len(st.got()); n != 1 {
			t.Fatalf("%d writes with nothing new, want still 1", n)
		}
		k.keep(map[string]string{"c2": "c"})
		k.close()
		k.keep(map[string]string{"c3": "d"})
		time.Sleep(time.Minute)
		synctest.Wait()
		if got, want := st.got(), []map[string]string{{"c1": "b"}, {"c2": "c"}}; !reflect.DeepEqual(got, want) {
			t.Fatalf("writes = %v, want the pending list written on close and nothing after: %v", got, want)
		}
	})
}
