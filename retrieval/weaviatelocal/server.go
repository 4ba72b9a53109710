// Package weaviatelocal runs the real weaviate-server binary as a child
// process on loopback: ragbot's embedded default and the test helper's server.
// The environment that makes it run on one machine without Docker is in
// serverEnv: the style of weaviate/weaviate's tools/dev/run_dev_server.sh
// ("local-no-modules"), with every setting named in Weaviate docs,
// 'Environment variables'. The server is locked: its REST and gRPC APIs
// want the API key kept in its data dir (auth.go), because its gRPC and
// cluster ports listen on every interface whatever the host setting
// (seen with `ss -ltnp`; docs/deploy.md, "The local server is locked").
package weaviatelocal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Version is the weaviate-server release ragbot is built and tested against.
const Version = "v1.39.2"

// InstallHint tells a user how to get the binary.
const InstallHint = "install it with: bash scripts/install-weaviate.sh (go install github.com/weaviate/weaviate/cmd/weaviate-server@" + Version + ")"

// ErrNoBinary is returned by FindBinary when weaviate-server is nowhere to be found.
var ErrNoBinary = errors.New("weaviate-server not found; " + InstallHint)

// Options configure a local server. Zero values pick the defaults in brackets.
type Options struct {
	Binary  string // executable; "" means FindBinary("")
	DataDir string // PERSISTENCE_DATA_PATH, created if missing (required)
	// Port is the HTTP port; gRPC, gossip, gossip data, Raft and Raft RPC take
	// Port+1..Port+5. 0 picks free ports (for tests with throwaway data dirs:
	// Raft state in a data dir remembers its ports, so a kept dir needs a fixed Port).
	// StartCluster: node i (0-based) takes Port+NodePortStride*i..+5.
	Port         int
	ReadyTimeout time.Duration // how long to wait for /v1/.well-known/ready [90s]
	Log          io.Writer     // server stdout and stderr [DataDir/weaviate.log]
	Logger       *slog.Logger  // lifecycle lines [slog.Default()]
}

// Server is a running weaviate-server child process. Stop it with Stop.
type Server struct {
	URL    string // "http://127.0.0.1:PORT"
	Name   string // the node's CLUSTER_HOSTNAME: "node1", "node2", ...
	GRPC   string // gRPC address, "127.0.0.1:PORT" (it listens on every interface)
	APIKey string // the key every request must carry as "Authorization: Bearer APIKey"
	// KeyFile is where APIKey is kept (mode 0600): APIKeyFile in the data
	// dir of a single server, in the cluster's data dir for a node.
	KeyFile string
	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has exited
	err     error         // exit error, valid after done
	logger  *slog.Logger
	closer  io.Closer
	logPath string
}

// FindBinary returns the weaviate-server executable: explicit if not empty,
// else the first of $PATH, $GOBIN and $(go env GOPATH)/bin (default ~/go/bin)
// that has it. It returns ErrNoBinary when there is none.
func FindBinary(explicit string) (string, error) {
	if explicit != "" {
		if _, err := os.Stat(explicit); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("weaviate.binary %q: %w; %s", explicit, err, InstallHint)
			}
			return "", fmt.Errorf("weaviate.binary %q: %w", explicit, err)
		}
		return explicit, nil
	}
	if p, err := exec.LookPath("weaviate-server"); err == nil {
		return p, nil
	}
	var dirs []string
	if b := os.Getenv("GOBIN"); b != "" {
		dirs = append(dirs, b)
	}
	if gp := os.Getenv("GOPATH"); gp != "" {
		for _, d := range filepath.SplitList(gp) {
			dirs = append(dirs, filepath.Join(d, "bin"))
		}
	} else if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		dirs = append(dirs, filepath.Join(strings.TrimSpace(string(out)), "bin"))
	} else if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, "go", "bin"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, "weaviate-server")
		if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", ErrNoBinary
}

// Ready reports whether a Weaviate at baseURL answers its readiness probe
// (GET /v1/.well-known/ready -> 200) within 2 seconds.
// Weaviate answers it without authentication; ReadyKey sends a key.
func Ready(ctx context.Context, baseURL string) bool {
	return ReadyKey(ctx, baseURL, "")
}

// Start launches weaviate-server and waits until it is ready. The child is
// stopped by Stop, not by ctx: ctx only bounds the wait. Errors: ErrNoBinary,
// a port or data-dir problem, or the server exiting or not becoming ready in
// time (the error then quotes the end of its log).
func Start(ctx context.Context, opt Options) (*Server, error) {
	creds, err := prepare(&opt)
	if err != nil {
		return nil, err
	}
	ports, err := pickPorts(opt.Port)
	if err != nil {
		return nil, err
	}
	s, err := launch(opt, ports, singleNode(ports), creds, filepath.Join(opt.DataDir, APIKeyFile))
	if err != nil {
		return nil, err
	}
	if err := s.waitReady(ctx, opt.ReadyTimeout); err != nil {
		_ = s.Stop(context.Background())
		return nil, err
	}
	return s, nil
}

// prepare sets opt.Binary to the executable FindBinary finds and loads
// the secrets kept in opt.DataDir (loadCredentials), which is required.
func prepare(opt *Options) (credentials, error) {
	bin, err := FindBinary(opt.Binary)
	if err != nil {
		return credentials{}, err
	}
	opt.Binary = bin
	if opt.DataDir == "" {
		return credentials{}, errors.New("weaviatelocal: DataDir is required")
	}
	return loadCredentials(opt.DataDir)
}

// launch starts one weaviate-server with its data in opt.DataDir, the six
// ports, the cluster settings of node and the secrets creds (kept in
// keyFile), without waiting for it.
// opt.Binary is the executable as FindBinary returned it (the callers look
// for it before they take the ports).
func launch(opt Options, ports [6]int, node nodeEnv, creds credentials, keyFile string) (*Server, error) {
	bin := opt.Binary
	if err := os.MkdirAll(opt.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("weaviate data dir: %w", err)
	}
	logger := cmp.Or(opt.Logger, slog.Default())
	logPath := filepath.Join(opt.DataDir, "weaviate.log")
	var closer io.Closer
	out := opt.Log
	if out == nil {
		f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("weaviate log: %w", err)
		}
		out, closer = f, f
	}
	cmd := exec.Command(bin, "--host", "127.0.0.1", "--port", strconv.Itoa(ports[0]), "--scheme", "http")
	cmd.Env = append(append(os.Environ(), serverEnv(opt.DataDir, ports, node)...), creds.authEnv()...)
	cmd.Stdout, cmd.Stderr = out, out
	// Own process group: a Ctrl-C on the terminal reaches ragbot only, which
	// stops the child in order; Pdeathsig ends the child if ragbot dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		if closer != nil {
			closer.Close()
		}
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", ports[0]), Name: node.name, GRPC: fmt.Sprintf("127.0.0.1:%d", ports[1]), APIKey: creds.apiKey, KeyFile: keyFile,
		cmd: cmd, done: make(chan struct{}), logger: logger, closer: closer, logPath: logPath}
	go func() { // exits when the child does
		s.err = cmd.Wait()
		close(s.done)
	}()
	logger.Info("starting weaviate-server", "url", s.URL, "node", node.name, "data_dir", opt.DataDir, "pid", cmd.Process.Pid)
	return s, nil
}

func (s *Server) waitReady(ctx context.Context, timeout time.Duration) error {
	logPath, timeout := s.logPath, cmp.Or(timeout, 90*time.Second)
	start := time.Now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-s.done:
			return fmt.Errorf("weaviate-server exited before it was ready (%v); end of %s:\n%s", s.err, logPath, tail(logPath, 15))
		case <-deadline.C:
			return fmt.Errorf("weaviate-server not ready after %s; end of %s:\n%s", timeout, logPath, tail(logPath, 15))
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-tick.C:
			if ReadyKey(ctx, s.URL, s.APIKey) {
				s.logger.Info("weaviate-server ready", "url", s.URL, "seconds", time.Since(start).Round(100*time.Millisecond).Seconds())
				return nil
			}
		}
	}
}

// Stop sends SIGTERM and waits for the server to exit, up to ctx's deadline or
// 30 seconds, then kills it. It is safe to call more than once.
func (s *Server) Stop(ctx context.Context) error {
	if s.closer != nil {
		defer s.closer.Close()
	}
	select {
	case <-s.done:
		return nil
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	timer := time.NewTimer(30 * time.Second)
	defer timer.Stop()
	select {
	case <-s.done:
	case <-ctx.Done():
		_ = s.cmd.Process.Kill()
		<-s.done
	case <-timer.C:
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	s.logger.Info("weaviate-server stopped", "url", s.URL)
	return nil
}

// Done is closed when the server process has exited.
func (s *Server) Done() <-chan struct{} { return s.done }

// nodeEnv is one node's place in its cluster: its name (CLUSTER_HOSTNAME,
// which Raft keys its state by, so it stays fixed for a data dir), the
// memberlist addresses it joins (CLUSTER_JOIN, host:gossip port), the Raft
// voters (RAFT_JOIN, name:RAFT_PORT) and how many of them bootstrap the
// cluster (RAFT_BOOTSTRAP_EXPECT).
type nodeEnv struct {
	name      string
	join      []string
	raftJoin  []string
	bootstrap int
	localhost bool // CLUSTER_IN_LOCALHOST: several nodes on one host, memberlist's local timings
}

func singleNode(p [6]int) nodeEnv {
	return nodeEnv{name: "node1", raftJoin: []string{"node1:" + strconv.Itoa(p[4])}, bootstrap: 1}
}

// serverEnv is the server's environment, without its secrets
// (credentials.authEnv): no modules, a Raft cluster on loopback (one node, or node's), profiling and telemetry
// off. Without CLUSTER_ADVERTISE_ADDR, weaviate-server 1.35.2 dies at start
// on a host with an IPv6 address (it builds the Raft RPC address as
// "fd00::2:8301": "too many colons in address"); CLUSTER_IN_LOCALHOST alone
// does not fix that.
func serverEnv(dataDir string, p [6]int, node nodeEnv) []string {
	env := []string{
		"PERSISTENCE_DATA_PATH=" + dataDir,
		"DEFAULT_VECTORIZER_MODULE=none",
		"ENABLE_MODULES=",
		"QUERY_DEFAULTS_LIMIT=25",
		"CLUSTER_HOSTNAME=" + node.name,
		"CLUSTER_ADVERTISE_ADDR=127.0.0.1",
		"CLUSTER_BIND_ADDR=127.0.0.1",
		"GRPC_PORT=" + strconv.Itoa(p[1]),
		"CLUSTER_GOSSIP_BIND_PORT=" + strconv.Itoa(p[2]),
		"CLUSTER_DATA_BIND_PORT=" + strconv.Itoa(p[3]),
		"RAFT_PORT=" + strconv.Itoa(p[4]),
		"RAFT_INTERNAL_RPC_PORT=" + strconv.Itoa(p[5]),
		"RAFT_BOOTSTRAP_EXPECT=" + strconv.Itoa(node.bootstrap),
		"RAFT_JOIN=" + strings.Join(node.raftJoin, ","),
		"GO_PROFILING_DISABLE=true",
		"DISABLE_TELEMETRY=true",
		"LOG_LEVEL=warning",
		"PROMETHEUS_MONITORING_ENABLED=false",
	}
	if len(node.join) > 0 {
		env = append(env, "CLUSTER_JOIN="+strings.Join(node.join, ","))
	}
	if node.localhost {
		env = append(env, "CLUSTER_IN_LOCALHOST=true")
	}
	return env
}

// pickPorts returns HTTP, gRPC, gossip, data, Raft and Raft RPC ports: base..base+5,
// or, for base 0, six ports free right now (gossip and data adjacent, as the
// server derives nothing but wants both).
func pickPorts(base int) ([6]int, error) {
	var p [6]int
	if base != 0 {
		for i := range p {
			p[i] = base + i
			if !free(p[i]) {
				return p, fmt.Errorf("weaviate port %d is in use (weaviate.port %d uses %d..%d); another ragbot or weaviate may be running", p[i], base, base, base+5)
			}
		}
		return p, nil
	}
	for i := range p {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return p, fmt.Errorf("pick a free port: %w", err)
		}
		defer l.Close()
		p[i] = l.Addr().(*net.TCPAddr).Port
	}
	return p, nil
}

func free(port int) bool {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
