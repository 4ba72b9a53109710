package doctor

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// getJSON GETs path of the Weaviate REST API into v; status is the HTTP
// status (0 when the request failed).
func (d *Doctor) getJSON(ctx context.Context, path string, v any) (status int, err error) {
	return d.doJSON(ctx, http.MethodGet, path, nil, v)
}

// doJSON sends body (nil for none) to path of the Weaviate REST API with
// method and decodes the answer into v; status is the HTTP status (0 when
// the request failed). A status other than 200 is an error quoting the body.
func (d *Doctor) doJSON(ctx context.Context, method, path string, body []byte, v any) (status int, err error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, d.base+path, rd)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if d.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+d.apiKey)
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(raw)))
	}
	return resp.StatusCode, json.Unmarshal(raw, v)
}

// checkWeaviate reads GET /v1/meta (Weaviate REST API, "meta"): reachable
// and its version.
func (d *Doctor) checkWeaviate(ctx context.Context) bool {
	var meta struct {
		Version string `json:"version"`
	}
	status, err := d.getJSON(ctx, "/v1/meta", &meta)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		d.line(checkFail, "weaviate", fmt.Sprintf("%s refused the API key: %v", d.base, err), "set the variable weaviate.api_key_env names to a key Weaviate accepts")
		return false
	case err != nil:
		d.line(checkFail, "weaviate", fmt.Sprintf("cannot reach %s: %v", d.base, err),
			"start it (`systemctl start weaviate`, or `ragbot weaviate` for the local one) or correct weaviate.url")
		return false
	}
	d.line(checkOK, "weaviate", fmt.Sprintf("%s reachable, version %s", d.base, meta.Version), "")
	return true
}

// checkNodes reads the cluster's view of the chunk collection
// (weaviate.CheckHealth, the check behind answers' partial-index warning and
// /readyz): every node HEALTHY, and every shard with a replica on a live
// node.
func (d *Doctor) checkNodes(ctx context.Context, class string) {
	h := weaviate.CheckHealth(ctx, d.http, d.base, d.apiKey, class)
	switch {
	case errors.Is(h.Err, weaviate.ErrNoCollection): // checkShards says so
	case h.Err != nil:
		d.line(checkWarn, "weaviate nodes", h.Err.Error(), "check Weaviate's log")
	case h.Unavailable > 0:
		d.line(checkFail, "weaviate nodes", fmt.Sprintf("%d of %d shards of %s have no live replica (nodes down: %s; replication factor %d): answers miss that part of the index",
			h.Unavailable, h.Shards, class, strings.Join(h.Down, ", "), h.Factor),
			"restart the nodes that are down; to survive a node loss, index with weaviate.replication_factor 3 (docs/deploy.md, Scaling out)")
	case len(h.Down) > 0:
		d.line(checkWarn, "weaviate nodes", fmt.Sprintf("%d of %d nodes down (%s); every shard of %s still has a live replica (replication factor %d)",
			len(h.Down), len(h.Nodes), strings.Join(h.Down, ", "), class, h.Factor), "restart the nodes that are down")
	default:
		d.line(checkOK, "weaviate nodes", fmt.Sprintf("%d of %d HEALTHY; %d shards of %s, replication factor %d", len(h.Nodes), len(h.Nodes), h.Shards, class, h.Factor), "")
	}
}

// checkShards reads GET /v1/schema/{class}/shards of both collections: a
// shard that is not READY refuses writes. Weaviate marks every shard
// READONLY when its disk use passes DISK_USE_READONLY_PERCENTAGE (default
// 90; Weaviate docs, "Environment variables") and never clears it itself.
func (d *Doctor) checkShards(ctx context.Context, classes ...string) {
	for _, class := range classes {
		var shards []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
		}
		status, err := d.getJSON(ctx, "/v1/schema/"+url.PathEscape(class)+"/shards", &shards)
		switch {
		case status == http.StatusNotFound:
			d.line(checkFail, "collection "+class, "does not exist: nothing is indexed", "run `ragbot index`")
			continue
		case err != nil:
			d.line(checkFail, "collection "+class, "cannot read its shards: "+err.Error(), "check Weaviate's log")
			continue
		}
		bad := 0
		for _, s := range shards {
			switch s.Status {
			case "READY":
			case "READONLY":
				bad++
				d.line(checkFail, "shard "+class+"/"+s.Name, "READONLY: index runs and votes cannot write (Weaviate sets this when the disk is nearly full)",
					fmt.Sprintf(`free disk space on Weaviate's data dir, then curl -X PUT %s/v1/schema/%s/shards/%s -H 'Content-Type: application/json' -d '{"status":"READY"}'`,
						d.base, class, s.Name))
			default:
				bad++
				d.line(checkWarn, "shard "+class+"/"+s.Name, "status "+s.Status, "wait for it to finish loading or indexing; check Weaviate's log if it stays")
			}
		}
		if bad == 0 {
			d.line(checkOK, "collection "+class, fmt.Sprintf("%d shards READY", len(shards)), "")
		}
	}
}

// checkCollectionEmbedder compares the embedders recorded in the chunk
// collection's description (see weaviate.OpenStore) with the configured ones.
func (d *Doctor) checkCollectionEmbedder(ctx context.Context, class string, emb retrieval.Embedder) {
	var c struct {
		Description string `json:"description"`
	}
	if _, err := d.getJSON(ctx, "/v1/schema/"+url.PathEscape(class), &c); err != nil {
		return // reported by checkShards
	}
	lex, sem := weaviate.DescribedEmbedders(c.Description)
	wantLex, wantSem := emb.Name(), ""
	if p, ok := emb.(retrieval.Pair); ok {
		wantLex, wantSem = p.Lexical.Name(), p.Semantic.Name()
	}
	switch {
	case lex != wantLex:
		d.line(checkFail, "embedder", fmt.Sprintf("collection %s was embedded by %q, the config's embedder is %q", class, lex, wantLex),
			"run `ragbot index` (re-embeds everything when embedder.kind is codesearch) or `ragbot index --recreate`, or restore the old embedder settings")
	case sem != wantSem:
		d.line(checkFail, "embedder", fmt.Sprintf("collection %s holds semantic vectors of %q, the config's semantic embedder is %q", class, cmp.Or(sem, "none"), cmp.Or(wantSem, "none")),
			"run `ragbot index` (re-embeds the semantic vectors)")
	default:
		d.line(checkOK, "embedder", fmt.Sprintf("collection %s matches the configured embedder %s", class, emb.Name()), "")
	}
}

// checkThresholds looks for a retrieval.thresholds entry for the embedder
// in use (its name or family). Without one the built-in defaults apply,
// which were calibrated for the offline embedders: a warning for them, a
// failure for an API embedder, whose similarities are on another scale.
func (d *Doctor) checkThresholds(cfg *config.Config, emb retrieval.Embedder, family string) {
	name := emb.Name()
	_, byName := cfg.Retrieval.Thresholds[name]
	_, byFamily := cfg.Retrieval.Thresholds[family]
	switch {
	case byName:
		d.line(checkOK, "thresholds", "retrieval.thresholds has an entry for "+name, "")
		return
	case byFamily:
		d.line(checkOK, "thresholds", "retrieval.thresholds has an entry for the family "+family, "")
		return
	}
	offline := cfg.Embedder.Kind != "openai" && (cfg.Embedder.Semantic == nil || cfg.Embedder.Semantic.Kind != "openai")
	fix := fmt.Sprintf("run `ragbot eval` on questions that include unanswerable ones and copy the calibrated thresholds it prints to retrieval.thresholds.%q", family)
	if offline {
		d.line(checkWarn, "thresholds", "no retrieval.thresholds entry for "+name+": using built-in defaults", fix)
		return
	}
	d.line(checkFail, "thresholds", "no retrieval.thresholds entry for the API embedder "+name+": the built-in defaults are not on its scale", fix)
}
