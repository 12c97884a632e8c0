package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// runServer starts a simulator and blocks until SIGINT or SIGTERM.
func runServer(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cksim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:8080", "address of the API and admin API (port 0 picks one)")
	profile := fs.String("profile", simulator.Profile42211,
		fmt.Sprintf("behaviour profile, one of %s (%q is an alias of %q)", strings.Join(simulator.Profiles(), ", "), simulator.ProfileFixed, simulator.ProfilePR14165))
	jobDuration := fs.Duration("job-duration", 0, "how long each async job takes (0: as fast as possible)")
	jobQueueDelay := fs.Duration("job-queue-delay", 0, "how long each async job waits in the queue before it runs, as on a busy server")
	keyOut := fs.String("key-out", "", "write the cks-key private key (OpenSSH PEM) to this file, mode 0600")
	seed := fs.Uint64("seed", 0, "make ids and keys deterministic (0: random)")
	noScanner := fs.Bool("no-scanner", false, "turn off the cluster state scanner's timer (admin scanner-run still runs it)")
	scannerInterval := fs.Duration("scanner-interval", simulator.DefaultScannerInterval, "period of the cluster state scanner's timer")
	guestPrefix := fs.Int("guest-cidr-prefix", 24, "prefix length of the guest networks the simulator creates (16-29)")
	listOrder := fs.String("list-order", simulator.ListOrderFromEnv(),
		`order of every list the API returns: "" (the real server's), "reversed" or "shuffled" (new permutation per call); default $`+
			simulator.ListOrderEnv)
	verbose := fs.Bool("v", false, "log simulator events to stderr")
	fs.Usage = func() { usage(fs) }
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if *scannerInterval <= 0 {
		return errors.New("-scanner-interval must be positive (use -no-scanner to turn the timer off)")
	}
	opts := simulator.Options{Profile: *profile, JobDuration: *jobDuration, JobQueueDelay: *jobQueueDelay, Seed: *seed,
		DisableScanner:  *noScanner,
		ScannerInterval: *scannerInterval,
		GuestCIDRPrefix: *guestPrefix, ListOrder: *listOrder}
	if *verbose {
		opts.Logf = func(format string, a ...any) { fmt.Fprintf(stderr, "cksim: "+format+"\n", a...) }
	}
	sim, err := simulator.New(opts)
	if err != nil {
		return err
	}
	defer func() { _ = sim.Close() }()
	if *keyOut != "" {
		path, err := writePrivateKey(*keyOut, sim.PrivateKeyPEM())
		if err != nil {
			return err
		}
		sim.SetPrivateKeyFile(path)
	}
	if err := sim.Start(*listen); err != nil {
		return err
	}
	line, err := json.Marshal(sim.Info())
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", line); err != nil {
		return err
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	return nil
}

// usage is cksim -h: what it runs, what it seeds by name (the JSON line on
// start gives each one's id beside it), and the flags.
func usage(fs *flag.FlagSet) {
	out := fs.Output()
	fmt.Fprint(out, "Usage: cksim [flags]\n       cksim admin -url <admin_url> <op> [key=value ...]\n       cksim version\n\n"+
		"cksim runs a simulator of the CloudStack CKS API until SIGINT or SIGTERM. On start it prints one JSON line\n"+
		"with everything a configuration needs: the API URL and keys, the admin URL, and the id of each object it\n"+
		"seeds beside its name (zone_id and zone_name, ...). The look-up data sources take these names:\n")
	for _, name := range simulator.SeededNames() {
		fmt.Fprintf(out, "  %s\n", name)
	}
	fmt.Fprintf(out, "\nFlags:\n")
	fs.PrintDefaults()
}

// writePrivateKey writes the key with mode 0600 (also when the file
// already exists) and returns its absolute path.
func writePrivateKey(path string, pemBytes []byte) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", fmt.Errorf("key file: %w", err)
	}
	if err := f.Chmod(0o600); err != nil {
		_ = f.Close()
		return "", fmt.Errorf("key file: %w", err)
	}
	_, werr := f.Write(pemBytes)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return "", errors.Join(errors.New("key file: write failed"), werr)
	}
	return abs, nil
}
