package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/ragbot/ragbot/retrieval/weaviatelocal"
)

const weaviateAbout = `ragbot weaviate runs the local Weaviate server (the embedded default) in the
foreground until interrupted, with data in weaviate.data_dir. Other ragbot
commands use it while it runs instead of starting their own.

With --nodes N (2..9) it runs a local cluster of N nodes instead, for trying
replication (weaviate.replication_factor) on one machine: node i (1-based)
keeps its data in weaviate.data_dir/node<i> and listens on
weaviate.port+10*(i-1) (HTTP) and the next five ports (gRPC, gossip, data,
Raft, Raft RPC). Other commands use the first node; list every node's URL in
weaviate.urls to fail over when one is down (docs/deploy.md, "Scaling out").

The server is locked: every request needs the API key that the first start
writes to weaviate.data_dir/ragbot-api-key (mode 0600; other ragbot commands
read it there). Send it as "Authorization: Bearer KEY", e.g.
  curl -H "Authorization: Bearer $(cat .ragbot/weaviate/ragbot-api-key)" http://127.0.0.1:8079/v1/schema

Examples:
  ragbot weaviate --config ragbot.yaml
  ragbot weaviate --nodes 3 --config ragbot.yaml`

func runWeaviate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newFlags("weaviate", weaviateAbout, stderr)
	nodes := fs.Int("nodes", 1, fmt.Sprintf("number of local Weaviate nodes, 1..%d (a cluster when above 1)", weaviatelocal.MaxNodes))
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *nodes < 1 || *nodes > weaviatelocal.MaxNodes {
		return fmt.Errorf("%w: --nodes %d, want 1..%d", errUsage, *nodes, weaviatelocal.MaxNodes)
	}
	cfg, err := loadConfig(cf.config)
	if err != nil {
		return err
	}
	if urls := cfg.Weaviate.Endpoints(); len(urls) > 0 {
		return fmt.Errorf("weaviate.url or weaviate.urls is set (%s): ragbot uses that server and runs none of its own", urls[0])
	}
	log := newLogger(stderr, *cf, slog.LevelWarn)
	opt := weaviatelocal.Options{Binary: cfg.Weaviate.Binary, DataDir: cfg.Resolve(cfg.Weaviate.DataDir), Port: cfg.Weaviate.Port, Logger: log}
	if *nodes == 1 {
		fmt.Fprintln(stderr, "starting weaviate-server...")
		srv, err := weaviatelocal.Start(ctx, opt)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "weaviate ready at %s (Ctrl-C to stop)\n", srv.URL)
		fmt.Fprintf(stdout, "API key in %s (send it as \"Authorization: Bearer KEY\")\n", srv.KeyFile)
		select {
		case <-ctx.Done():
		case <-srv.Done():
			return fmt.Errorf("weaviate-server exited; see %s/weaviate.log", opt.DataDir)
		}
		return srv.Stop(context.Background())
	}
	fmt.Fprintf(stderr, "starting a cluster of %d weaviate-server nodes...\n", *nodes)
	cl, err := weaviatelocal.StartCluster(ctx, opt, *nodes)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "weaviate cluster of %d nodes ready (Ctrl-C to stop):\n", *nodes)
	for _, n := range cl.Nodes {
		fmt.Fprintf(stdout, "  %s %s\n", n.Name, n.URL)
	}
	fmt.Fprintf(stdout, "API key in %s (send it as \"Authorization: Bearer KEY\")\n", cl.Nodes[0].KeyFile)
	fmt.Fprintf(stdout, "other commands use %s; to fail over between the nodes, set weaviate.urls: [%s]\n", cl.Nodes[0].URL, strings.Join(cl.URLs(), ", "))
	// A node that exits (killed to try failover, say) leaves the others
	// running; Ctrl-C stops them, or the last one exiting ends the command.
	exited := make(chan *weaviatelocal.Server, len(cl.Nodes))
	for _, n := range cl.Nodes {
		go func() { <-n.Done(); exited <- n }()
	}
	for left := len(cl.Nodes); left > 0; left-- {
		select {
		case <-ctx.Done():
			return cl.Stop(context.Background())
		case n := <-exited:
			fmt.Fprintf(stderr, "weaviate node %s (%s) exited; see %s/%s/weaviate.log\n", n.Name, n.URL, opt.DataDir, n.Name)
		}
	}
	return fmt.Errorf("every weaviate node exited; see the logs in %s/node*/weaviate.log", opt.DataDir)
}
