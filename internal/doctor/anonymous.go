package doctor

import (
	"context"
	"fmt"
	"net/http"
)

// checkAnonymous warns when Weaviate answers a request that carries no
// credentials: GET /v1/schema without a key. The probe only reads, but
// Weaviate's anonymous access is one switch for every permission (Weaviate
// docs, "Authentication": AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED), so
// unless an authorization scheme limits the anonymous user, whoever reaches
// the server can also write and delete the index. A refusal (401/403) is
// the ok line; any other answer is not judged here (checkWeaviate already
// reported reachability). local says ragbot started the server (no
// weaviate.url), which changes the fix.
func (d *Doctor) checkAnonymous(ctx context.Context, local bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.base+"/v1/schema", nil)
	if err != nil {
		return
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return
	}
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		d.line(checkOK, "weaviate auth", fmt.Sprintf("%s refuses requests without an API key", d.base), "")
	case http.StatusOK:
		fix := "turn off AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED and turn on API keys (AUTHENTICATION_APIKEY_ENABLED, _ALLOWED_KEYS, _USERS), then name the key's variable in weaviate.api_key_env (docs/deploy.md)"
		if local {
			fix = "stop that server and let this ragbot start it (`ragbot weaviate`): it locks the local server with the key in weaviate.data_dir"
		}
		d.line(checkWarn, "weaviate auth", fmt.Sprintf("%s answered a request without credentials (GET /v1/schema: 200): anonymous access is on, so unless authorization limits anonymous users, anyone who can reach it can also write to and delete the index", d.base), fix)
	}
}
