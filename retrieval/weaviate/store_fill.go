package weaviate

import (
	"cmp"
	"context"
	"fmt"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"
)

// fillBatch is how many pending chunks FillPending embeds and writes at
// once (one Embed call, one batch write).
const fillBatch = 128

// FillPending gives the chunks stored without their semantic vector
// (Upsert with a lexical vector alone) their semantic vector. It asks for
// the pending chunks alone, re.Batch ids at a time (a GraphQL Get filtered
// on semantic_pending; Weaviate docs, 'Filters'), reads those objects with
// their properties and vectors (REST objects, by id), embeds them with
// re.Embed from re.Text, and writes each back whole, with the same
// properties, its lexical vector and the new semantic one, and no longer
// marked pending; then asks again, until none is left. It holds one batch
// of objects, whatever the collection's size, and reads no filled chunk.
// Each object is either pending or filled, so a fill stopped part way
// (killed, ctx done) leaves the rest marked and the next FillPending goes
// on from them, neither twice nor with a hole. re.Progress, when set, gets
// the count filled so far after each batch. It returns how many it filled;
// 0 without a semantic embedder. Errors: reading or writing objects,
// re.Embed's error, or objects still marked pending after they were
// written, each with the count filled before it.
func (s *Store) FillPending(ctx context.Context, re *Reembedder) (int, error) {
	if s.sem == "" {
		return 0, nil
	}
	size := cmp.Or(re.Batch, fillBatch)
	filled := 0
	var last map[string]bool // the ids of the batch written last
	for {
		ids, err := s.pendingIDs(ctx, size)
		if err != nil {
			return filled, err
		}
		if len(ids) == 0 {
			return filled, nil
		}
		objs := make([]*models.Object, 0, len(ids))
		again := 0
		for _, id := range ids {
			if last[id] {
				again++ // written already: the filter has not caught up yet
				continue
			}
			o, err := s.objectWithVectors(ctx, id)
			if err != nil {
				return filled, err
			}
			if o != nil {
				objs = append(objs, o)
			}
		}
		if len(objs) == 0 && again == 0 {
			return filled, nil // the pending ones listed were deleted since
		}
		if len(objs) == 0 {
			return filled, fmt.Errorf("weaviate: %d objects of %s still marked pending after their semantic vectors were written", len(ids), s.chunk)
		}
		if err := s.reembedObjects(ctx, re, objs); err != nil {
			return filled, err
		}
		filled += len(objs)
		if re.Progress != nil {
			re.Progress(filled)
		}
		last = make(map[string]bool, len(objs))
		for _, o := range objs {
			last[string(o.ID)] = true
		}
	}
}

// pendingIDs returns the ids of at most n chunks marked pending.
func (s *Store) pendingIDs(ctx context.Context, n int) ([]string, error) {
	where := pendingWhere()
	resp, err := gqlResult(s.client.GraphQL().Get().WithClassName(s.chunk).WithWhere(where).WithConsistencyLevel(s.gqlLevel()).
		WithLimit(n).WithFields(graphql.Field{Name: "_additional { id }"}).Do(ctx))
	if err != nil {
		return nil, fmt.Errorf("weaviate: list pending chunks of %s: %w", s.chunk, describe(err))
	}
	rows, err := decodeGet[row](resp, s.chunk)
	if err != nil {
		return nil, fmt.Errorf("weaviate: list pending chunks of %s: %w", s.chunk, err)
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.Additional.ID
	}
	return ids, nil
}

// objectWithVectors reads one object of the chunk collection with its
// properties and vectors (REST objects, by id); nil when it is gone.
func (s *Store) objectWithVectors(ctx context.Context, id string) (*models.Object, error) {
	objs, err := s.client.Data().ObjectsGetter().WithClassName(s.chunk).WithID(id).WithVector().WithConsistencyLevel(s.cl).Do(ctx)
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("weaviate: read object %s of %s to fill its semantic vector: %w", id, s.chunk, describe(err))
	}
	if len(objs) == 0 || objs[0].ID != strfmt.UUID(id) {
		return nil, nil
	}
	return objs[0], nil
}
