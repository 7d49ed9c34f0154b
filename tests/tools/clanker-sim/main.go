// Command clanker-sim serves the Google Messages simulator for a person to browse (make sim).
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/tests/simctl"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8377", "listen address of the Messages app origin (loopback)")
	accounts := flag.String("accounts-addr", "127.0.0.1:0", "listen address of the fake Google accounts origin")
	seed := flag.Uint64("seed", 1, "seed for ids and label delays (same seed, same ids)")
	variant := flag.String("variant", "", "start with page variants, comma-separated (see app/demo/sim: signed-out, slow, recycle, linger, clear-silently, ...)")
	flag.Parse()

	opts := sim.Options{Seed: *seed, Addr: *addr, AccountsAddr: *accounts}
	for _, v := range strings.Split(*variant, ",") {
		if v = strings.TrimSpace(v); v != "" {
			opts.Variants = append(opts.Variants, sim.Variant(v))
		}
	}
	s, err := simctl.Start(opts)
	if err != nil {
		slog.Error("start simulator", "err", err)
		os.Exit(1)
	}
	fmt.Printf("Google Messages simulator: %s\n", s.AppURL())
	fmt.Printf("Control API:              %s/__sim/ (see tests/simctl/doc.go)\n", s.URL())
	fmt.Printf("Accounts origin:          %s\n", s.AccountsURL())
	fmt.Println("Press Ctrl+C to stop.")
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	s.Close()
}
