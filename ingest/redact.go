package ingest

import (
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/rs/zerolog"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
	"github.com/zricethezav/gitleaks/v8/report"

	"github.com/ragbot/ragbot/retrieval"
)

// RedactOptions configure secret redaction (NewRedactor).
type RedactOptions struct {
	// AllowPaths are doublestar globs ("testdata/**", "**/*_fixture.go")
	// matched against a chunk's path (Chunk.Path: the repository-relative
	// file, the page path or the spec file's name); text under them is not
	// scanned, so its findings are kept as committed (known test fixtures).
	AllowPaths []string
	// DisableRules are gitleaks rule ids ("generic-api-key") switched off.
	DisableRules []string
}

// A Redactor finds secrets with gitleaks' default rules
// (github.com/zricethezav/gitleaks/v8, config/gitleaks.toml: some 220
// rules, each prefiltered by keywords through one Aho-Corasick trie) and
// replaces each with a marker naming the rule, "[redacted: RULE]".
//
// One Redactor is built per process and shared by every index worker: its
// gitleaks Detector is only read by Detect (v8.30.1, detect/detect.go:
// DetectContext reads the rules, the prefilter trie and the allowlists, and
// adds to an atomic byte counter; the findings list it keeps under a mutex
// is only filled by DetectSource, which Redactor does not call). A nil
// *Redactor redacts nothing.
type Redactor struct {
	det   *detect.Detector
	allow []string
}

// Redaction is one secret replaced: where and by which rule, never the
// secret itself nor anything derived from it.
type Redaction struct {
	Path string // Chunk.Path of the text
	Line int    // 1-based line of the secret's first line (in the file for code, in the page or spec otherwise)
	Rule string // gitleaks rule id, "aws-access-token"
}

// RedactMarker is what a secret found by rule is replaced with.
func RedactMarker(rule string) string { return "[redacted: " + rule + "]" }

// NewRedactor builds the gitleaks detector with its default configuration,
// less opt.DisableRules. Errors name the config field: an unknown rule id
// (indexing.redact_disable_rules) or a bad glob (indexing.redact_allow_paths).
// Building it parses the default TOML and compiles every rule's regexp
// (about 0.1-0.3 s); build one and share it.
func NewRedactor(opt RedactOptions) (*Redactor, error) {
	for _, g := range opt.AllowPaths {
		if !doublestar.ValidatePattern(g) {
			return nil, fmt.Errorf("indexing.redact_allow_paths: %q is not a valid glob", g)
		}
	}
	cfg, err := defaultGitleaksConfig()
	if err != nil {
		return nil, fmt.Errorf("gitleaks default config: %w", err)
	}
	for _, id := range opt.DisableRules {
		if _, ok := cfg.Rules[id]; !ok {
			return nil, fmt.Errorf("indexing.redact_disable_rules: %q is not a rule id of gitleaks (its default config, config/gitleaks.toml, lists them)", id)
		}
		delete(cfg.Rules, id)
	}
	kept := cfg.OrderedRules[:0]
	for _, id := range cfg.OrderedRules {
		if _, ok := cfg.Rules[id]; ok {
			kept = append(kept, id)
		}
	}
	cfg.OrderedRules = kept
	return &Redactor{det: detect.NewDetector(cfg), allow: opt.AllowPaths}, nil
}

// RedactRuleIDs lists the ids of gitleaks' default rules, sorted: the valid
// entries of indexing.redact_disable_rules.
func RedactRuleIDs() ([]string, error) {
	cfg, err := defaultGitleaksConfig()
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(cfg.Rules))
	for id := range cfg.Rules {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, nil
}

// defaultGitleaksConfig is detect.NewDetectorDefaultConfig's configuration,
// read with a viper instance of its own instead of viper's global one. It
// also silences gitleaks' own logger (zerolog, to stderr), whose trace lines
// would print secrets: ragbot logs its findings itself.
func defaultGitleaksConfig() (config.Config, error) {
	logging.Logger = logging.Logger.Level(zerolog.Disabled)
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return config.Config{}, err
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return config.Config{}, err
	}
	return vc.Translate()
}

// Fingerprint identifies what the redactor redacts ("" for nil), for the
// settings fingerprint of a source: changing redaction rewrites the index.
func (r *Redactor) Fingerprint() string {
	if r == nil {
		return ""
	}
	return fmt.Sprintf("redact|%s|%q", strings.Join(r.det.Config.OrderedRules, ","), r.allow)
}

// allowed reports whether p matches one of the allowed globs.
func (r *Redactor) allowed(p string) bool {
	for _, g := range r.allow {
		if ok, _ := doublestar.Match(g, p); ok {
			return true
		}
	}
	return false
}

// Text returns text with every secret gitleaks finds in it replaced by
// RedactMarker(rule), and the redactions, sorted by line. Lines are kept:
// a secret is replaced within its lines, and a secret of several lines (a
// PEM private key block) becomes one marker per line, each after the
// indentation of the line it replaces, so that line numbers of the text and
// of any chunk cut from it stay right. Every occurrence of a found secret
// is replaced. The secret is gitleaks' Finding.Secret (the rule's secret
// group) when it occurs in text, else the whole match; when neither does,
// the lines of the match, and failing that every line, become markers.
// path (Chunk.Path) is given to gitleaks for its path-scoped rules (*.tf,
// *.yaml ...) and its allowlisted paths (dependency folders, lock files);
// text under RedactOptions.AllowPaths is returned as it is.
func (r *Redactor) Text(path, text string) (string, []Redaction) {
	if r == nil || text == "" || r.allowed(path) {
		return text, nil
	}
	findings := r.det.Detect(detect.Fragment{Raw: text, FilePath: path})
	if len(findings) == 0 {
		return text, nil
	}
	type hit struct {
		target, rule string
		line         int
	}
	var hits []hit
	seen := map[string]bool{}
	for _, f := range findings {
		target := pickTarget(text, f)
		if target == "" { // a path-only rule ("file detected"): no text to replace
			continue
		}
		line := strings.Count(text[:strings.Index(text, target)], "\n") + 1
		key := f.RuleID + "\x00" + target
		if seen[key] {
			continue
		}
		seen[key] = true
		hits = append(hits, hit{target, f.RuleID, line})
	}
	// Longest first, so that a secret inside another finding's match is
	// replaced with it rather than leaving half of the longer one.
	sort.SliceStable(hits, func(i, j int) bool { return len(hits[i].target) > len(hits[j].target) })
	out := text
	var red []Redaction
	for _, h := range hits {
		if strings.Contains(out, h.target) {
			out = strings.ReplaceAll(out, h.target, markerLines(h.target, h.rule))
		}
		red = append(red, Redaction{Path: path, Line: h.line, Rule: h.rule})
	}
	sort.SliceStable(red, func(i, j int) bool {
		if red[i].Line != red[j].Line {
			return red[i].Line < red[j].Line
		}
		return red[i].Rule < red[j].Rule
	})
	return out, red
}

// pickTarget is the text to replace for finding f: its secret, its match,
// or its whole line(s), the first that occurs in text; "" for a finding
// without text (path-only rules). When none occurs, the whole text is the
// target: nothing that gitleaks flagged is left in place.
func pickTarget(text string, f report.Finding) string {
	if f.Secret == "" && f.Match == "" || strings.HasPrefix(f.Match, "file detected: ") {
		return ""
	}
	for _, t := range []string{f.Secret, f.Match, f.Line} {
		if t != "" && strings.Contains(text, t) {
			return t
		}
	}
	return strings.TrimSuffix(text, "\n")
}

// markerLines is the replacement of secret: one marker per line of it, the
// lines after the first keeping their indentation.
func markerLines(secret, rule string) string {
	m := RedactMarker(rule)
	lines := strings.Split(secret, "\n")
	for i, l := range lines {
		if i == 0 {
			lines[i] = m
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if strings.TrimSpace(l) == "" {
			lines[i] = l // keep an empty line empty
			continue
		}
		lines[i] = indent + m
	}
	return strings.Join(lines, "\n")
}

// Chunk redacts, in place, every text of c that is shown or searched and
// comes from the source: Content, Signature and Symbol (Confluence headings,
// API operation names). It sets neither ContentHash nor SearchText: callers
// derive them after. Redaction lines are those of the source: c.StartLine
// plus the line within Content.
func (r *Redactor) Chunk(c *retrieval.Chunk) []Redaction {
	if r == nil {
		return nil
	}
	var all []Redaction
	var found []Redaction
	c.Content, found = r.Text(c.Path, c.Content)
	for _, f := range found {
		f.Line += c.StartLine - 1
		all = append(all, f)
	}
	for _, field := range []*string{&c.Signature, &c.Symbol} {
		var more []Redaction
		if *field, more = r.Text(c.Path, *field); len(more) > 0 {
			for _, f := range more {
				f.Line = c.StartLine
				if !containsRule(all, f.Rule) { // the signature repeats the content's lines
					all = append(all, f)
				}
			}
		}
	}
	return all
}

func containsRule(rs []Redaction, rule string) bool {
	for _, r := range rs {
		if r.Rule == rule {
			return true
		}
	}
	return false
}

// logRedactions logs each redaction at warn level: path, line and rule,
// never the secret.
func logRedactions(log *slog.Logger, rs []Redaction) {
	for _, r := range rs {
		log.Warn("secret redacted", "path", r.Path, "line", r.Line, "rule", r.Rule)
	}
}
