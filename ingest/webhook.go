package ingest

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"strings"
	"sync"

	"golang.org/x/sync/semaphore"

	"github.com/ragbot/ragbot/config"
)

// MaxWebhookBody is the largest delivery read, in bytes: GitHub caps
// webhook payloads at 25 MB ("Webhook events and payloads", GitHub docs).
const MaxWebhookBody = 25 << 20

// WebhookHandler answers GitHub push webhooks (X-Hub-Signature-256) and
// GitLab push hooks (X-Gitlab-Token) for the sources in Repos
// (GitHub docs, 'Validating webhook deliveries' and 'Webhook events and
// payloads'; GitLab docs, 'Webhooks'). Mount it under a prefix and point each repository's
// hook at <prefix>/<source name>, or an organisation-wide hook at the
// prefix itself: the source is then found by the repository URLs in the
// payload (Repo.URLs).
//
// A delivery without a signature or token header gets 401 before its body is
// read; one announcing more than MaxWebhookBody bytes gets 413 unread; large
// ones are read MaxLargeBodies at a time (503 with Retry-After past that).
// To a hook URL naming its source, a GitLab token that does not match, or a
// GitHub signature that is not "sha256=" and 64 hex digits, gets 401
// unread too, and a GitHub body is hashed as it is read (through
// http.MaxBytesReader, which stops at MaxWebhookBody); one over 1 MiB goes
// to a temporary file meanwhile and is read back only when its signature
// matches. An organisation-wide hook's body is read into memory to find
// its source, MaxLargeBodies at a time.
// A delivery whose signature or token does not verify with its source's
// WebhookSecret gets 401 and triggers nothing; the body is checked byte for
// byte as received, before it is parsed for anything but the source, and
// compared in constant time. A verified push to a tracked branch triggers a
// run (202); so does the deletion of a tracked branch (GitHub's "deleted":
// true, GitLab's "after" of 40 zeros), which removes the branch's chunks,
// when Delete is set. A ping, a tag, another event or an untracked branch
// is acknowledged (200) and ignored. Answers come at once: the run
// happens later, so GitHub's 10 s delivery timeout is never at risk.
type WebhookHandler struct {
	Repos []Repo
	// Trigger asks for a run of a branch of the source named source
	// (Queue.Trigger); it must not block.
	Trigger func(source, branch, reason string)
	// Delete, when set, asks for the removal of a deleted branch's chunks
	// and state (GitService.Webhooks queues it like a run); it must not
	// block. Nil ignores deletions.
	Delete func(source, branch, reason string)
	Log    *slog.Logger // [slog.Default()]
	// MaxLargeBodies is how many deliveries over largeWebhookBody bytes
	// (or of unknown length) are read at once; another gets 503 with
	// Retry-After, which GitHub and GitLab show as a failed delivery to
	// redeliver. It bounds the memory that large bodies can hold to
	// MaxLargeBodies x MaxWebhookBody [DefaultMaxLargeWebhookBodies].
	MaxLargeBodies int
	// OnReject, when set, is told why each delivery was refused (4xx or
	// 503): one of the Reject* reasons.
	OnReject func(reason string)

	largeOnce sync.Once
	large     *semaphore.Weighted // of large body reads
}

// DefaultMaxLargeWebhookBodies is WebhookHandler.MaxLargeBodies' default:
// at most 4 x 25 MB = 100 MB of large bodies in memory. Push payloads are
// usually a few KB to a few hundred KB, so a real burst of pushes stays
// under largeWebhookBody and is not limited.
const DefaultMaxLargeWebhookBodies = 4

// largeWebhookBody is the size, in bytes, over which a delivery counts
// against MaxLargeBodies: 1 MiB.
const largeWebhookBody = 1 << 20

// webhookRetryAfter is the Retry-After (seconds) of a 503 for too many
// large deliveries: long enough for the reads under way to finish.
const webhookRetryAfter = "10"

func (h *WebhookHandler) maxLarge() int {
	if h.MaxLargeBodies > 0 {
		return h.MaxLargeBodies
	}
	return DefaultMaxLargeWebhookBodies
}

func (h *WebhookHandler) acquireLarge() bool {
	h.largeOnce.Do(func() { h.large = semaphore.NewWeighted(int64(h.maxLarge())) })
	return h.large.TryAcquire(1)
}

// readBody reads at most MaxWebhookBody bytes of r's body: into one buffer
// of its Content-Length when announced (io.ReadAll would grow its buffer by
// doubling, holding up to twice the body while it reads), else as
// io.ReadAll does. Errors: *http.MaxBytesError past the cap, a read error,
// or a body shorter than announced.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body := http.MaxBytesReader(w, r.Body, MaxWebhookBody)
	if n := r.ContentLength; n >= 0 && n <= MaxWebhookBody {
		buf := make([]byte, n)
		if _, err := io.ReadFull(body, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	return io.ReadAll(body)
}

// signatureHeader is the delivery's signature (GitHub, X-Hub-Signature-256)
// or token (GitLab, X-Gitlab-Token), "" when it has none.
func signatureHeader(provider string, hdr http.Header) string {
	switch provider {
	case providerGitHub:
		return hdr.Get("X-Hub-Signature-256")
	case providerGitLab:
		return hdr.Get("X-Gitlab-Token")
	}
	return ""
}

var _ http.Handler = (*WebhookHandler)(nil)

// A delivery's provider, from its headers.
const (
	providerGitHub = "github"
	providerGitLab = "gitlab"
)

// pushEvent holds the fields of a GitHub push or a GitLab push hook that
// the handler reads (GitHub docs, 'Webhook events and payloads', "push";
// GitLab docs, 'Webhook events', "Push events").
type pushEvent struct {
	Ref        string `json:"ref"`
	After      string `json:"after"`
	Deleted    bool   `json:"deleted"` // GitHub; GitLab says so with after = 40 zeros
	Repository struct {
		FullName      string `json:"full_name"`
		CloneURL      string `json:"clone_url"`
		SSHURL        string `json:"ssh_url"`
		HTMLURL       string `json:"html_url"`
		GitHTTPURL    string `json:"git_http_url"` // GitLab
		GitSSHURL     string `json:"git_ssh_url"`  // GitLab
		Homepage      string `json:"homepage"`     // GitLab
		DefaultBranch string `json:"default_branch"`
	} `json:"repository"`
	Project struct { // GitLab
		WebURL            string `json:"web_url"`
		GitHTTPURL        string `json:"git_http_url"`
		GitSSHURL         string `json:"git_ssh_url"`
		PathWithNamespace string `json:"path_with_namespace"`
		DefaultBranch     string `json:"default_branch"`
	} `json:"project"`
}

func (e pushEvent) urls() []string {
	return []string{e.Repository.CloneURL, e.Repository.SSHURL, e.Repository.HTMLURL, e.Repository.GitHTTPURL,
		e.Repository.GitSSHURL, e.Repository.Homepage, e.Project.WebURL, e.Project.GitHTTPURL, e.Project.GitSSHURL}
}

func (e pushEvent) defaultBranch() string {
	return cmp.Or(e.Project.DefaultBranch, e.Repository.DefaultBranch) // GitLab's, else GitHub's
}

// webhookReply is the JSON body of every answer; GitHub and GitLab show it
// in their delivery logs.
type webhookReply struct {
	Status string `json:"status"` // queued, ignored, pong, error
	Source string `json:"source,omitempty"`
	Branch string `json:"branch,omitempty"`
	Reason string `json:"reason,omitempty"`
	reject string // a refusal's Reject* reason, for WebhookHandler.OnReject
}

// Reasons a delivery is refused (WebhookHandler.OnReject).
const (
	RejectMethod           = "method"            // not a POST
	RejectNotAHook         = "not_a_hook"        // neither GitHub's nor GitLab's event header
	RejectMissingSignature = "missing_signature" // no X-Hub-Signature-256 or X-Gitlab-Token
	RejectTooLarge         = "too_large"         // over MaxWebhookBody, announced or read
	RejectBusy             = "busy"              // too many large deliveries being read
	RejectUnreadable       = "unreadable"        // the body could not be read
	RejectUnknownSource    = "unknown_source"    // no configured source for the hook
	RejectBadSignature     = "bad_signature"     // the HMAC or token does not match
	RejectBadPayload       = "bad_payload"       // a verified push that is not JSON
)

func (h *WebhookHandler) log() *slog.Logger { return cmp.Or(h.Log, slog.Default()) }

// ServeHTTP handles one delivery.
func (h *WebhookHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	provider, event, delivery := deliveryHeaders(r)
	log := h.log().With("provider", provider, "event", event, "delivery", delivery)
	reply := func(code int, rep webhookReply) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(rep)
		lvl := slog.LevelInfo
		if code >= 400 {
			lvl = slog.LevelWarn
			if h.OnReject != nil && rep.reject != "" {
				h.OnReject(rep.reject)
			}
		}
		log.Log(r.Context(), lvl, "webhook", "status", code, "outcome", rep.Status, "source", rep.Source,
			"branch", rep.Branch, "reason", rep.Reason)
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		reply(http.StatusMethodNotAllowed, webhookReply{Status: "error", Reason: "POST only", reject: RejectMethod})
		return
	}
	if provider == "" {
		reply(http.StatusBadRequest, webhookReply{Status: "error", Reason: "not a GitHub (X-GitHub-Event) or GitLab (X-Gitlab-Event) delivery", reject: RejectNotAHook})
		return
	}
	if signatureHeader(provider, r.Header) == "" {
		reply(http.StatusUnauthorized, webhookReply{Status: "error", Reason: "no signature (X-Hub-Signature-256) or token (X-Gitlab-Token) header", reject: RejectMissingSignature})
		return
	}
	if r.ContentLength > MaxWebhookBody {
		reply(http.StatusRequestEntityTooLarge, webhookReply{Status: "error", Reason: fmt.Sprintf("body over %d bytes", MaxWebhookBody), reject: RejectTooLarge})
		return
	}
	if r.ContentLength < 0 || r.ContentLength > largeWebhookBody {
		if !h.acquireLarge() {
			w.Header().Set("Retry-After", webhookRetryAfter)
			reply(http.StatusServiceUnavailable, webhookReply{Status: "error", Reason: fmt.Sprintf("%d large deliveries are being read; retry later", h.maxLarge()), reject: RejectBusy})
			return
		}
		defer h.large.Release(1)
	}
	named, isNamed := h.named(r.URL.Path)
	var mac hash.Hash
	if isNamed {
		if reason := judgeNamed(provider, r.Header, named); reason != "" {
			reply(http.StatusUnauthorized, webhookReply{Status: "error", Reason: reason, reject: RejectBadSignature})
			return
		}
		if provider == providerGitHub {
			mac = hmac.New(sha256.New, []byte(named.WebhookSecret.Reveal()))
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.TeeReader(r.Body, mac), r.Body}
		}
	}
	read := readBody
	if mac != nil && (r.ContentLength < 0 || r.ContentLength > largeWebhookBody) {
		read = func(w http.ResponseWriter, r *http.Request) ([]byte, error) { return spoolSigned(w, r, mac) }
	}
	body, err := read(w, r)
	if errors.Is(err, errBadSignature) {
		reply(http.StatusUnauthorized, webhookReply{Status: "error", Reason: "signature or token does not match the source's webhook secret", reject: RejectBadSignature})
		return
	}
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			reply(http.StatusRequestEntityTooLarge, webhookReply{Status: "error", Reason: fmt.Sprintf("body over %d bytes", MaxWebhookBody), reject: RejectTooLarge})
			return
		}
		reply(http.StatusBadRequest, webhookReply{Status: "error", Reason: "could not read the body", reject: RejectUnreadable})
		return
	}
	payload := jsonPayload(r.Header.Get("Content-Type"), body)
	candidates := h.candidates(r.URL.Path, payload)
	if len(candidates) == 0 {
		reply(http.StatusNotFound, webhookReply{Status: "error", Reason: "no configured source for this hook URL or repository", reject: RejectUnknownSource})
		return
	}
	var repo Repo
	var ok bool
	if mac != nil { // hashed as it was read
		repo, ok = named, macMatches(r.Header.Get("X-Hub-Signature-256"), mac)
	} else {
		repo, ok = verified(provider, r.Header, body, candidates)
	}
	if !ok {
		reply(http.StatusUnauthorized, webhookReply{Status: "error", Reason: "signature or token does not match the source's webhook secret", reject: RejectBadSignature})
		return
	}
	rep := webhookReply{Source: repo.Name}
	switch {
	case provider == providerGitHub && event == "ping":
		rep.Status = "pong"
	case provider == providerGitHub && event != "push", provider == providerGitLab && event != "Push Hook":
		rep.Status, rep.Reason = "ignored", "not a push event"
	}
	if rep.Status != "" {
		reply(http.StatusOK, rep)
		return
	}
	var push pushEvent
	if err := json.Unmarshal(payload, &push); err != nil {
		rep.Status, rep.Reason, rep.reject = "error", "push payload is not JSON: "+err.Error(), RejectBadPayload
		reply(http.StatusBadRequest, rep)
		return
	}
	branch, isBranch := strings.CutPrefix(push.Ref, "refs/heads/")
	rep.Branch = branch
	deleted, code := push.Deleted || push.After == zeroSHA, http.StatusOK
	switch {
	case !isBranch:
		rep.Status, rep.Reason = "ignored", fmt.Sprintf("ref %q is not a branch", push.Ref)
	case !repo.tracks(branch, push.defaultBranch()):
		rep.Status, rep.Reason = "ignored", fmt.Sprintf("branch %q is not tracked", branch)
	case deleted && h.Delete == nil:
		rep.Status, rep.Reason = "ignored", "branch deleted; this handler removes no chunks"
	case deleted:
		h.Delete(repo.Name, branch, provider+" branch deleted")
		code, rep.Status, rep.Reason = http.StatusAccepted, "queued", "branch deleted; its chunks will be removed"
	default:
		h.Trigger(repo.Name, branch, fmt.Sprintf("%s push %s", provider, short(push.After)))
		code, rep.Status = http.StatusAccepted, "queued"
	}
	reply(code, rep)
}

// deliveryHeaders returns the provider, event name and delivery id of a request.
func deliveryHeaders(r *http.Request) (provider, event, delivery string) {
	if e := r.Header.Get("X-GitHub-Event"); e != "" {
		return providerGitHub, e, r.Header.Get("X-GitHub-Delivery")
	}
	if e := r.Header.Get("X-Gitlab-Event"); e != "" {
		return providerGitLab, e, r.Header.Get("X-Gitlab-Event-UUID")
	}
	return "", "", ""
}

// jsonPayload returns the JSON of a delivery: the body, or its "payload"
// field when GitHub sent it form-encoded (the signature still covers the
// raw body).
func jsonPayload(contentType string, body []byte) []byte {
	if mt, _, _ := mime.ParseMediaType(contentType); mt == "application/x-www-form-urlencoded" {
		if v, err := url.ParseQuery(string(body)); err == nil {
			return []byte(v.Get("payload"))
		}
	}
	return body
}

// candidates are the repos a delivery may be for: the one named by the last
// segment of the URL path, else those whose URLs the payload names.
func (h *WebhookHandler) candidates(urlPath string, payload []byte) []Repo {
	if r, ok := h.named(urlPath); ok {
		return []Repo{r}
	}
	var push pushEvent
	if json.Unmarshal(payload, &push) != nil {
		return nil
	}
	named := map[string]bool{}
	for _, u := range push.urls() {
		if n := normalizeRepoURL(u); n != "" {
			named[n] = true
		}
	}
	var out []Repo
	for _, r := range h.Repos {
		for _, u := range r.URLs {
			if named[normalizeRepoURL(u)] {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// verified returns the first candidate whose secret verifies the delivery.
func verified(provider string, hdr http.Header, body []byte, candidates []Repo) (Repo, bool) {
	for _, r := range candidates { // both checks refuse an empty secret
		if provider == providerGitHub && validGitHubSignature(body, hdr.Get("X-Hub-Signature-256"), r.WebhookSecret) ||
			provider == providerGitLab && validGitLabToken(hdr.Get("X-Gitlab-Token"), r.WebhookSecret) {
			return r, true
		}
	}
	return Repo{}, false
}

// named is the repo whose name is the last segment of the hook URL path.
func (h *WebhookHandler) named(urlPath string) (Repo, bool) {
	name := path.Base(path.Clean("/" + urlPath))
	for _, r := range h.Repos {
		if r.Name == name {
			return r, true
		}
	}
	return Repo{}, false
}

// judgeNamed checks what the headers alone can tell of a delivery to a
// hook URL naming repo: the repo has a secret, GitLab's token matches it
// (constant time), GitHub's signature is "sha256=" and 64 hex digits. It
// returns why the delivery fails, "" when it may be read.
func judgeNamed(provider string, hdr http.Header, repo Repo) string {
	switch {
	case repo.WebhookSecret == "":
		return "signature or token does not match the source's webhook secret"
	case provider == providerGitLab && !validGitLabToken(hdr.Get("X-Gitlab-Token"), repo.WebhookSecret):
		return "signature or token does not match the source's webhook secret"
	case provider == providerGitHub:
		hexSig, ok := strings.CutPrefix(hdr.Get("X-Hub-Signature-256"), "sha256=")
		if _, err := hex.DecodeString(hexSig); !ok || err != nil || len(hexSig) != 2*sha256.Size {
			return "X-Hub-Signature-256 is not sha256= and 64 hex digits"
		}
	}
	return ""
}

// errBadSignature is spoolSigned's error for a body whose HMAC does not
// match its X-Hub-Signature-256.
var errBadSignature = errors.New("signature does not match")

// spoolSigned reads a large GitHub body (r.Body already hashed through mac)
// into a temporary file, at most MaxWebhookBody bytes, and reads it back
// only when mac matches its X-Hub-Signature-256, so that a large body with
// a wrong signature never sits in memory (32 KB at a time). Errors:
// errBadSignature, readBody's, or the temporary file's.
func spoolSigned(w http.ResponseWriter, r *http.Request, mac hash.Hash) ([]byte, error) {
	f, err := os.CreateTemp("", "ragbot-webhook-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if _, err := io.Copy(f, http.MaxBytesReader(w, r.Body, MaxWebhookBody)); err != nil {
		return nil, err
	}
	if !macMatches(r.Header.Get("X-Hub-Signature-256"), mac) {
		return nil, errBadSignature
	}
	return os.ReadFile(f.Name())
}

// macMatches compares X-Hub-Signature-256 with the HMAC of the body read
// through mac, in constant time.
func macMatches(header string, mac hash.Hash) bool {
	got, err := hex.DecodeString(strings.TrimPrefix(header, "sha256="))
	return err == nil && hmac.Equal(got, mac.Sum(nil))
}

// validGitHubSignature checks X-Hub-Signature-256: "sha256=" and the hex
// HMAC-SHA256 of the raw body keyed with the secret, compared in constant time.
func validGitHubSignature(body []byte, header string, secret config.Secret) bool {
	if !strings.HasPrefix(header, "sha256=") || secret == "" {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret.Reveal()))
	mac.Write(body)
	return macMatches(header, mac)
}

// validGitLabToken checks X-Gitlab-Token, a plain shared secret, in
// constant time (the hashes also hide the secret's length).
func validGitLabToken(header string, secret config.Secret) bool {
	if header == "" || secret == "" {
		return false
	}
	a, b := sha256.Sum256([]byte(header)), sha256.Sum256([]byte(secret.Reveal()))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// normalizeRepoURL reduces a repository address to "host/path" in lower
// case, without ".git" or a trailing "/", so that the clone URL, the SSH
// URL and the web URL of one repository compare equal:
// "git@github.com:Org/Repo.git", "https://github.com/org/repo" and
// "ssh://git@github.com:22/org/repo.git" all give "github.com/org/repo".
func normalizeRepoURL(u string) string {
	u = strings.TrimSpace(u)
	if u == "" {
		return ""
	}
	var host, p string
	if !strings.Contains(u, "://") { // scp-like: [user@]host:path
		hostPart, rest, ok := strings.Cut(u, ":")
		if !ok {
			return ""
		}
		if _, h, ok := strings.Cut(hostPart, "@"); ok {
			hostPart = h
		}
		host, p = hostPart, rest
	} else {
		pu, err := url.Parse(u)
		if err != nil {
			return ""
		}
		host, p = pu.Hostname(), pu.Path
	}
	p = strings.TrimSuffix(strings.Trim(p, "/"), ".git")
	return strings.ToLower(host + "/" + strings.Trim(p, "/"))
}
