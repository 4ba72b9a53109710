package eval

import (
	"fmt"
	"os"

	"github.com/ragbot/ragbot/retrieval"
)

// LoadFiles reads the question set of every file (Load); ids must be
// unique across them. Errors name the file.
func LoadFiles(files []string) ([]Question, error) {
	var all []Question
	from := map[string]string{}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		qs, err := Load(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, q := range qs {
			if prev, dup := from[q.ID]; dup {
				return nil, fmt.Errorf("%s: question id %q is already used in %s", name, q.ID, prev)
			}
			from[q.ID] = name
		}
		all = append(all, qs...)
	}
	return all, nil
}

// Results returns the first n hits (fewer when there are fewer), reduced
// to what matching needs.
func Results(hits []retrieval.Hit, n int) []Result {
	res := make([]Result, 0, min(n, len(hits)))
	for _, h := range hits[:min(n, len(hits))] {
		c := h.Chunk
		res = append(res, Result{Path: c.Path, StartLine: c.StartLine, EndLine: c.EndLine, Symbol: c.Symbol, Kind: c.Kind})
	}
	return res
}
