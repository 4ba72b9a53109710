package weaviatelocal

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// NodePortStride is how far apart the port blocks of a local cluster's nodes
// are: node i (0-based) takes Port+NodePortStride*i .. +5 (HTTP, gRPC,
// gossip, data, Raft, Raft RPC), so a 3-node cluster on the default port 8079
// uses 8079-8084, 8089-8094 and 8099-8104.
const NodePortStride = 10

// MaxNodes bounds a local cluster: its nodes' port blocks must not overlap
// with the next few ports a user is likely to give another ragbot.
const MaxNodes = 9

// Cluster is a local Weaviate cluster: N weaviate-server processes on
// loopback that form one Raft cluster and one memberlist (Weaviate docs,
// "Horizontal scaling" / "Cluster architecture"). Any node coordinates
// replicated reads and writes, so a client may talk to any of them.
type Cluster struct {
	Nodes []*Server // Nodes[i] is "node<i+1>", its URL on Port+NodePortStride*i
}

// URLs lists the nodes' HTTP base URLs in node order.
func (c *Cluster) URLs() []string {
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		out[i] = n.URL
	}
	return out
}

// Stop stops every node (SIGTERM, see Server.Stop), the last first.
func (c *Cluster) Stop(ctx context.Context) error {
	var errs []error
	for i := len(c.Nodes) - 1; i >= 0; i-- {
		errs = append(errs, c.Nodes[i].Stop(ctx))
	}
	return errors.Join(errs...)
}

// StartCluster starts n weaviate-server nodes on loopback and waits until
// they form one cluster. opt.Port is required (Raft state in a data dir
// remembers its peers' ports); node i (0-based) is named "node<i+1>", keeps
// its data in opt.DataDir/node<i+1> and takes the six ports from
// opt.Port+NodePortStride*i (see Options.Port). All nodes start at once:
// each lists the others' gossip addresses in CLUSTER_JOIN and all Raft voters
// in RAFT_JOIN with RAFT_BOOTSTRAP_EXPECT=n, as weaviate/weaviate's
// tools/dev/run_dev_server.sh runs its local three-node cluster, so the Raft
// cluster bootstraps once all n have met. StartCluster returns when every
// node answers its readiness probe, GET /v1/nodes on the first lists n
// HEALTHY nodes and GET /v1/cluster/statistics reports the Raft cluster
// synchronized with a leader, within opt.ReadyTimeout [90s]. n = 1 is a
// one-node cluster in DataDir/node1 (Start keeps its data in DataDir itself).
// Errors: n out of 1..MaxNodes, a port in use, ErrNoBinary, a node that
// exits or does not become ready (quoting its log), or the cluster not
// forming in time; the nodes started are stopped then.
func StartCluster(ctx context.Context, opt Options, n int) (*Cluster, error) {
	if n < 1 || n > MaxNodes {
		return nil, fmt.Errorf("weaviate cluster: %d nodes, want 1..%d", n, MaxNodes)
	}
	if opt.Port == 0 {
		return nil, errors.New("weaviate cluster: a fixed Port is required (Raft state remembers the peers' ports)")
	}
	creds, err := prepare(&opt)
	if err != nil {
		return nil, err
	}
	ports := make([][6]int, n)
	var join, raftJoin []string
	for i := range ports {
		var p [6]int
		for j := range p {
			p[j] = opt.Port + NodePortStride*i + j
			if !free(p[j]) {
				return nil, fmt.Errorf("weaviate port %d is in use (node%d of a cluster on weaviate.port %d uses %d..%d); another ragbot or weaviate may be running",
					p[j], i+1, opt.Port, p[0], p[0]+5)
			}
		}
		ports[i] = p
		join = append(join, "127.0.0.1:"+strconv.Itoa(p[2]))
		raftJoin = append(raftJoin, fmt.Sprintf("node%d:%d", i+1, p[4]))
	}
	c := &Cluster{}
	for i := range ports {
		nopt := opt
		nopt.DataDir = filepath.Join(opt.DataDir, fmt.Sprintf("node%d", i+1))
		others := append(append([]string{}, join[:i]...), join[i+1:]...)
		srv, err := launch(nopt, ports[i], nodeEnv{name: fmt.Sprintf("node%d", i+1), join: others, raftJoin: raftJoin,
			bootstrap: n, localhost: true}, creds, filepath.Join(opt.DataDir, APIKeyFile))
		if err != nil {
			_ = c.Stop(context.Background())
			return nil, err
		}
		c.Nodes = append(c.Nodes, srv)
	}
	timeout := cmp.Or(opt.ReadyTimeout, 90*time.Second)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, srv := range c.Nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = srv.waitReady(ctx, timeout)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		_ = c.Stop(context.Background())
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := waitFormed(wctx, c.Nodes[0].URL, creds.apiKey, n); err != nil {
		_ = c.Stop(context.Background())
		return nil, err
	}
	return c, nil
}

// waitFormed polls the node at url until its GET /v1/nodes lists n nodes,
// all HEALTHY, and GET /v1/cluster/statistics says the Raft cluster is
// synchronized and has a leader.
func waitFormed(ctx context.Context, url, key string, n int) error {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	last := "no answer yet"
	for {
		healthy, err := healthyNodes(ctx, url, key)
		switch {
		case err != nil:
			last = err.Error()
		case healthy < n:
			last = fmt.Sprintf("%d of %d nodes HEALTHY", healthy, n)
		default:
			ok, why := raftFormed(ctx, url, key)
			if ok {
				return nil
			}
			last = why
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("weaviate cluster of %d nodes did not form (%s): %w", n, last, context.Cause(ctx))
		case <-tick.C:
		}
	}
}

// healthyNodes counts the nodes with status HEALTHY in GET /v1/nodes.
func healthyNodes(ctx context.Context, url, key string) (int, error) {
	var body struct {
		Nodes []struct {
			Status string `json:"status"`
		} `json:"nodes"`
	}
	if err := GetJSON(ctx, url+"/v1/nodes", key, &body); err != nil {
		return 0, err
	}
	healthy := 0
	for _, n := range body.Nodes {
		if n.Status == "HEALTHY" {
			healthy++
		}
	}
	return healthy, nil
}

// raftFormed reads GET /v1/cluster/statistics: synchronized, and a leader named.
func raftFormed(ctx context.Context, url, key string) (bool, string) {
	var body struct {
		Synchronized bool `json:"synchronized"`
		Statistics   []struct {
			LeaderID any `json:"leaderId"`
		} `json:"statistics"`
	}
	if err := GetJSON(ctx, url+"/v1/cluster/statistics", key, &body); err != nil {
		return false, err.Error()
	}
	if !body.Synchronized {
		return false, "raft not synchronized"
	}
	for _, s := range body.Statistics {
		if id, _ := s.LeaderID.(string); id == "" {
			return false, "no raft leader"
		}
	}
	return true, ""
}

// GetJSON GETs url with key as a bearer token (none when empty), giving up
// after 2 seconds, and decodes a 200 answer into v unless v is nil; any
// other status is an error.
func GetJSON(ctx context.Context, url, key string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", strings.TrimPrefix(url, "http://"), resp.Status)
	}
	if v == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// Kill ends the server at once with SIGKILL, as a crash or an OOM kill
// would, and waits for it to exit: its data dir is left as it was.
func (s *Server) Kill() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
	if s.closer != nil {
		s.closer.Close()
	}
	s.logger.Info("weaviate-server killed", "url", s.URL)
}
