package ingest

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	_ "embed"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/bmatcuk/doublestar/v4"
	"github.com/rs/zerolog"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
	"github.com/zricethezav/gitleaks/v8/report"

	"github.com/ragbot/ragbot/internal/suggest"
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

// A Redactor finds secrets with gitleaks' default rules and allowlists
// (github.com/zricethezav/gitleaks/v8, config/gitleaks.toml: some 220
// rules), plus the allowlists of redact_allow.toml (checksums), and
// replaces each with a marker naming the rule, "[redacted: RULE]".
//
// gitleaks' own prefilter runs every rule one of whose keywords occurs
// anywhere in a text over the whole text, and a few keywords ("api", "key",
// "token", "s.", "ey") occur in most source files, so that nearly every
// regexp runs over nearly every file. A Redactor finds the keywords once
// (one Aho-Corasick pass, as gitleaks does) and runs each rule only over
// the lines around its own keywords' hits (ruleContext), with one gitleaks
// Detector per rule; it then drops a generic-* finding that a specific
// rule found on the same line, as gitleaks' filter does within one scan.
//
// One Redactor is built per process and shared by every index worker: a
// gitleaks Detector is only read by Detect (v8.30.1, detect/detect.go:
// DetectContext reads the rules, the prefilter trie and the allowlists, and
// adds to an atomic byte counter; the findings list it keeps under a mutex
// is only filled by DetectSource, which Redactor does not call). A nil
// *Redactor redacts nothing.
type Redactor struct {
	rules  map[string]*detect.Detector // one per rule with a regexp, by rule id
	ids    []string                    // rule ids, sorted
	always []string                    // ids of the rules without keywords: scanned over the whole text
	allow  []string
	// keywords finds the rules' keywords (lower case) in a text; byWord
	// lists the rules of each, by the trie's pattern index.
	keywords *ahocorasick.Trie
	byWord   [][]string
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

// NewRedactor builds a gitleaks detector for each rule of its default
// configuration, less opt.DisableRules. Errors name the config field: an
// unknown rule id (indexing.redact_disable_rules) or a bad glob
// (indexing.redact_allow_paths).
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
			ids := slices.Sorted(maps.Keys(cfg.Rules))
			hint := ""
			if near, ok := suggest.Closest(id, ids); ok {
				hint = fmt.Sprintf("did you mean %q? ", near)
			}
			return nil, fmt.Errorf("indexing.redact_disable_rules: %q is not a rule id of gitleaks v8.30.1; %sthe rule ids are those of config/gitleaks.toml in github.com/gitleaks/gitleaks, e.g. %s", id, hint, strings.Join(ids[:min(5, len(ids))], ", "))
		}
		delete(cfg.Rules, id)
	}
	r := &Redactor{rules: map[string]*detect.Detector{}, allow: opt.AllowPaths}
	rulesOf := map[string][]string{} // lower-case keyword -> rule ids
	for id, rule := range cfg.Rules {
		if rule.Regex == nil {
			continue // path-only rules (pkcs12-file): a name, no text to redact
		}
		one := config.Config{Rules: map[string]config.Rule{id: rule}, Keywords: map[string]struct{}{},
			OrderedRules: []string{id}, Allowlists: cfg.Allowlists}
		if len(rule.Keywords) == 0 { // none in v8.30.1's defaults; gitleaks runs such a rule always
			r.always = append(r.always, id)
		}
		for _, k := range rule.Keywords {
			k = strings.ToLower(k)
			one.Keywords[k] = struct{}{}
			if !slices.Contains(rulesOf[k], id) {
				rulesOf[k] = append(rulesOf[k], id)
			}
		}
		r.rules[id] = detect.NewDetector(one)
		r.ids = append(r.ids, id)
	}
	sort.Strings(r.ids)
	sort.Strings(r.always)
	words := slices.Sorted(maps.Keys(rulesOf))
	for _, k := range words {
		r.byWord = append(r.byWord, rulesOf[k])
	}
	r.keywords = ahocorasick.NewTrieBuilder().AddStrings(words).Build()
	return r, nil
}

// extraAllowlists are the allowlists ragbot adds to gitleaks' default
// configuration, in gitleaks' TOML format: checksums that are not secrets.
//
//go:embed redact_allow.toml
var extraAllowlists string

// defaultGitleaksConfig is detect.NewDetectorDefaultConfig's configuration
// with the global allowlists of redact_allow.toml appended, as gitleaks'
// [extend] useDefault = true would append them (config.Config.extend). It
// reads both with viper instances of its own, because gitleaks' extend
// reads the default through viper's global instance and counts its depth
// in a package variable that nothing resets. It also silences gitleaks'
// own logger (zerolog, to stderr), whose trace lines would print secrets:
// ragbot logs its findings itself.
func defaultGitleaksConfig() (config.Config, error) {
	logging.Logger = logging.Logger.Level(zerolog.Disabled)
	cfg, err := readGitleaksConfig(config.DefaultConfig)
	if err != nil {
		return config.Config{}, err
	}
	extra, err := readGitleaksConfig(extraAllowlists)
	if err != nil {
		return config.Config{}, fmt.Errorf("redact_allow.toml: %w", err)
	}
	cfg.Allowlists = append(cfg.Allowlists, extra.Allowlists...)
	return cfg, nil
}

// readGitleaksConfig parses a gitleaks configuration in TOML.
func readGitleaksConfig(toml string) (config.Config, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(toml)); err != nil {
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
// It covers the rule ids, the allowed paths and ragbot's allowlists
// (redact_allow.toml), not the patterns of gitleaks' own rules and
// allowlists, which may change with its version.
func (r *Redactor) Fingerprint() string {
	if r == nil {
		return ""
	}
	sum := sha256.Sum256([]byte(extraAllowlists))
	return fmt.Sprintf("redact|%s|%q|allow %x", strings.Join(r.ids, ","), r.allow, sum[:8])
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
// is replaced, and counted once (a Redaction at its first line). The
// secret is gitleaks' Finding.Secret (the rule's secret
// group) when it occurs in text, else the whole match; when neither does,
// the lines of the match, and failing that every line, become markers.
// path (Chunk.Path) is given to gitleaks for its path-scoped rules (*.tf,
// *.yaml ...) and its allowlisted paths (dependency folders, lock files);
// text under RedactOptions.AllowPaths is returned as it is.
func (r *Redactor) Text(path, text string) (string, []Redaction) {
	if r == nil || text == "" || r.allowed(path) {
		return text, nil
	}
	findings := r.detect(path, text)
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
	slices.SortStableFunc(red, func(a, b Redaction) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), strings.Compare(a.Rule, b.Rule))
	})
	return out, red
}

// ruleContext is how many lines before and after a line holding one of a
// rule's keywords a match of the rule may reach; every rule of gitleaks'
// default config but pkcs12-file (file names only) has keywords, and a
// rule's keyword is part of what it matches. Most patterns reach over line
// breaks only through a few whitespace characters ("[\s'\"]{0,3}") or, like
// curl-auth-header, five continuation lines: 12 lines either way is ample.
// generic-api-key, the costliest (its keywords "api", "key", "token" are
// everywhere; see also assignsAfter), matches from its keyword's line over
// at most 8 whitespace characters and a line end. kubernetes-secret-yaml spans up to 500 characters of a YAML
// document either side of "secret"; private-key runs from its BEGIN line to
// its END line (an 8192-bit RSA key in PEM is about 100 lines).
func ruleContext(id string) (before, after int) {
	switch id {
	case "generic-api-key":
		return 0, 9
	case "vault-service-token": // keyword "s." is in every Go method body; no line break before its end
		return 0, 1
	case "kubernetes-secret-yaml":
		return 60, 60
	case "private-key":
		return 12, 400
	}
	return 12, 12
}

// detect returns gitleaks' findings in text: each rule run over the lines
// around its keywords (ruleContext), one fragment per run of such lines,
// with gitleaks' generic-versus-specific filter applied across them.
func (r *Redactor) detect(path, text string) []report.Finding {
	lower := []byte(text) // ASCII lower case: offsets stay those of text
	for i, c := range lower {
		if 'A' <= c && c <= 'Z' {
			lower[i] = c + 'a' - 'A'
		}
	}
	var findings []report.Finding
	for _, id := range r.always {
		findings = append(findings, r.rules[id].Detect(detect.Fragment{Raw: text, FilePath: path})...)
	}
	matches := r.keywords.Match(lower)
	if len(matches) == 0 {
		return dropGeneric(findings)
	}
	starts := []int{0} // byte offset of each line
	for i := 0; i < len(text)-1; i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	lineOf := func(off int) int { return sort.SearchInts(starts, off+1) - 1 }
	hits := map[string][]int{} // rule id -> 0-based lines of its keywords, ascending
	for _, m := range matches {
		l := lineOf(int(m.Pos()))
		end := int(m.Pos()) + len(m.Match())
		for _, id := range r.byWord[m.Pattern()] {
			if id == "generic-api-key" && !assignsAfter(lower, end) {
				continue
			}
			if ls := hits[id]; len(ls) == 0 || ls[len(ls)-1] != l {
				hits[id] = append(ls, l)
			}
		}
	}
	for _, id := range r.ids {
		lines := hits[id]
		if len(lines) == 0 {
			continue
		}
		sort.Ints(lines) // matches come by end offset: a long keyword may start a line earlier
		before, after := ruleContext(id)
		var spans [][2]int // line ranges, inclusive
		for _, l := range lines {
			lo, hi := max(l-before, 0), min(l+after, len(starts)-1)
			if n := len(spans); n > 0 && lo <= spans[n-1][1]+1 {
				spans[n-1][1] = max(spans[n-1][1], hi)
				continue
			}
			spans = append(spans, [2]int{lo, hi})
		}
		for _, sp := range spans {
			end := len(text)
			if sp[1]+1 < len(starts) {
				end = starts[sp[1]+1]
			}
			findings = append(findings, r.rules[id].Detect(detect.Fragment{Raw: text[starts[sp[0]]:end], FilePath: path, StartLine: sp[0]})...)
		}
	}
	return dropGeneric(findings)
}

// assignsAfter reports whether an assignment operator of generic-api-key
// can follow a keyword ending at end: its pattern (gitleaks v8.30.1,
// config/gitleaks.toml) is the keyword, at most 20 of [ \t\w.-], at most 3
// of [\s'"], then one of = > :{1,3}= || : => ?= , so one of the bytes
// "=>:|," comes within 24 bytes of the keyword's end. A keyword without one
// ("apiURL", "c.tokens[i]") cannot start a match, and its lines need no scan.
func assignsAfter(lower []byte, end int) bool {
	window := lower[end:min(end+24, len(lower))]
	return bytes.ContainsAny(window, "=>:|,")
}

// dropGeneric leaves out a finding of a generic rule whose secret a
// specific rule's finding on the same line holds: gitleaks' filter
// (detect/utils.go), which runs within one Detect call, across rules here.
func dropGeneric(fs []report.Finding) []report.Finding {
	generic := func(f report.Finding) bool { return strings.Contains(strings.ToLower(f.RuleID), "generic") }
	out := fs[:0:0]
	for _, f := range fs {
		if generic(f) && slices.ContainsFunc(fs, func(g report.Finding) bool {
			return g.StartLine == f.StartLine && g.RuleID != f.RuleID && !generic(g) && strings.Contains(g.Secret, f.Secret)
		}) {
			continue
		}
		out = append(out, f)
	}
	return out
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
	lines[0] = m
	for i, l := range lines[1:] {
		if strings.TrimSpace(l) != "" { // keep an empty line empty
			lines[i+1] = l[:len(l)-len(strings.TrimLeft(l, " \t"))] + m
		}
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
	var all, more []Redaction
	c.Content, all = r.Text(c.Path, c.Content)
	for i := range all {
		all[i].Line += c.StartLine - 1
	}
	for _, field := range []*string{&c.Signature, &c.Symbol} {
		*field, more = r.Text(c.Path, *field)
		for _, f := range more {
			f.Line = c.StartLine
			if !slices.ContainsFunc(all, func(a Redaction) bool { return a.Rule == f.Rule }) { // the signature repeats the content's lines
				all = append(all, f)
			}
		}
	}
	return all
}
