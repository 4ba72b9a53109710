package weaviate

import (
	"cmp"
	"context"

	"github.com/weaviate/weaviate/entities/models"
)

// fillBatch is how many pending chunks FillPending embeds and writes at
// once (one Embed call, one batch write).
const fillBatch = 128

// FillPending gives the chunks stored without their semantic vector
// (Upsert with a lexical vector alone) their semantic vector. It walks the
// collection (eachObjectPage), embeds the pending objects with re.Embed
// from re.Text, re.Batch at a time, and writes each back whole, with the same properties, its lexical
// vector and the new semantic one, and no longer marked pending. Each
// object is either pending or filled, so a fill stopped part way (killed,
// ctx done) leaves the rest marked and the next FillPending goes on from
// them, neither twice nor with a hole. re.Progress, when set, gets the
// count filled so far after each batch. It returns how many it filled; 0
// without a semantic embedder. Errors: reading or writing objects, or
// re.Embed's error, with the count filled before it.
func (s *Store) FillPending(ctx context.Context, re *Reembedder) (int, error) {
	if s.sem == "" {
		return 0, nil
	}
	filled := 0
	var todo []*models.Object
	flush := func() error {
		if len(todo) == 0 {
			return nil
		}
		if err := s.reembedObjects(ctx, re, todo); err != nil {
			return err
		}
		filled += len(todo)
		todo = todo[:0]
		if re.Progress != nil {
			re.Progress(filled)
		}
		return nil
	}
	err := s.eachObjectPage(ctx, "fill their semantic vectors", func(objs []*models.Object) error {
		for _, o := range objs {
			if p, ok := o.Properties.(map[string]any); ok && p[pendingProperty] == true {
				todo = append(todo, o)
			}
			if len(todo) == cmp.Or(re.Batch, fillBatch) {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return filled, err
	}
	return filled, flush()
}
