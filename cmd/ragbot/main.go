// Command ragbot indexes a team's repositories and docs into Weaviate and
// answers "where is X?" with cited snippets. See `ragbot help`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/ragbot/ragbot/internal/memprofile"
	"github.com/ragbot/ragbot/internal/suggest"
)

const usage = `ragbot answers "where is X?" questions with cited snippets from your code and docs.

Usage:
  ragbot <command> [flags] [args]

Commands:
  index       index the configured sources into Weaviate
  ask         answer a question in the terminal with cited snippets
  eval        score retrieval on a question set (recall@1, recall@5, MRR@10)
  weaviate    run the local Weaviate server in the foreground
  validate    check the config file and exit (starts and contacts nothing)
  doctor      check a deployment (Weaviate, shards, embedder, sources, credentials) and say how to fix it
  serve       run the Slack and/or Teams bot, webhooks and scheduled re-indexing until interrupted
  feedback    export the 👍/👎 votes on answers as eval questions (feedback export)
  forget      delete chunks by source, branch, path or page, or a user's stored questions
  version     print ragbot's version, Go's, the embedder's and Weaviate's (also --version)

Every command takes --config FILE (default ragbot.yaml). Run "ragbot <command> -h" for its flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	stopProfile := memprofile.Start(os.Stderr) // RAGBOT_MEMPROFILE=path: the Go heap at its peak
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stopProfile()
	stop()
	os.Exit(code)
}

// errUsage marks errors that deserve exit code 2.
var errUsage = errors.New("usage")

// run dispatches to a subcommand and returns the exit code: 0 on success, 1
// on failure, 2 on a usage error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmds := map[string]func(context.Context, []string, io.Writer, io.Writer) error{
		"index": runIndex, "ask": runAsk, "eval": runEval, "weaviate": runWeaviate, "validate": runValidate,
		"serve": runServe, "feedback": runFeedback, "forget": runForget, "version": runVersion, "doctor": runDoctor,
	}
	name, rest := args[0], args[1:]
	if name == "--version" || name == "-version" {
		name = "version"
	}
	if name == "help" || name == "-h" || name == "--help" {
		if _, ok := cmds[first(rest)]; !ok || name != "help" {
			fmt.Fprint(stdout, usage)
			return 0
		}
		name, rest = rest[0], []string{"-h"} // "ragbot help index" is "ragbot index -h"
	}
	cmd, ok := cmds[name]
	if !ok {
		hint := ""
		if near, ok := suggest.Closest(name, slices.Sorted(maps.Keys(cmds))); ok {
			hint = fmt.Sprintf("; did you mean %q?", near)
		}
		fmt.Fprintf(stderr, "ragbot: unknown command %q%s\n\n%s", name, hint, usage)
		return 2
	}
	err := cmd(ctx, rest, stdout, stderr)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "ragbot %s: %v\n", name, err)
	if errors.Is(err, errUsage) {
		return 2
	}
	return 1
}

// unknownSubcommand is the usage error of `ragbot CMD WORD` when WORD is not
// one of CMD's subcommands (subs), with the closest one as a hint.
func unknownSubcommand(cmd, word string, subs []string) error {
	want := "ragbot " + cmd + " " + strings.Join(subs, "|")
	if near, ok := suggest.Closest(word, subs); ok {
		return fmt.Errorf("%w: unknown subcommand %q; did you mean %q? (%s; -h for help)", errUsage, word, near, want)
	}
	return fmt.Errorf("%w: unknown subcommand %q (%s; -h for help)", errUsage, word, want)
}

// first is args[0], or "" when there is none.
func first(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help" || arg == "help"
}

// newFlags makes a subcommand's flag set, with the flags every subcommand
// has (commonFlags) and a usage text that says what it does and shows an
// example.
func newFlags(name, about string, stderr io.Writer) (*flag.FlagSet, *commonFlags) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "%s\n\nFlags:\n", about)
		fs.PrintDefaults()
	}
	cf := &commonFlags{logFormat: "text"}
	fs.StringVar(&cf.config, "config", "ragbot.yaml", "config `file`")
	fs.BoolVar(&cf.verbose, "v", false, "log debug lines to stderr")
	fs.Var(&cf.logFormat, "log-format", "format of the log lines on stderr: text (key=value) or json (one object a line)")
	return fs, cf
}

// parseFlags parses args, wrapping failures as usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return nil
}

// parseInterspersed is parseFlags for a command whose arguments are words
// (ask's question): flags may come before, between or after them, as GNU
// getopt allows, and everything after "--" is a word, so that a question
// may start with a dash. The flag package alone stops at the first word and
// would leave the flags after it in the question.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var words []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := args[:len(args)-len(rest)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(words, rest...), nil
		}
		if len(rest) == 0 {
			return words, nil
		}
		words = append(words, rest[0])
		args = rest[1:]
	}
}
